#!/usr/bin/env bash
# Builds .bundle/ for the GPU machine (no Node.js, no registry there): each entry point bundled with esbuild into
# one ESM file, plus the native Dawn addon of the `webgpu` package and tfjs' wasm binaries.
# Usage: bash tools/device/bundle.sh ENTRY.(ts|mjs) [ENTRY ...]   (from the repo root; run pack.sh once for .device/)
# On the device: source .device/on-device.sh && node .bundle/<name>.mjs ...
set -euo pipefail
out=.bundle
rm -rf "$out"; mkdir -p "$out/node_modules/webgpu/dist/linux-x64" "$out/wasm"
cp node_modules/webgpu/index.js node_modules/webgpu/package.json "$out/node_modules/webgpu/"
cp node_modules/webgpu/dist/linux-x64/dawn.node "$out/node_modules/webgpu/dist/linux-x64/"
cp node_modules/@tensorflow/tfjs-backend-wasm/dist/*.wasm "$out/wasm/" 2>/dev/null || true
for entry in "$@"; do
  name=$(basename "${entry%.*}")
  npx esbuild "$entry" --bundle --platform=node --format=esm --target=node20 \
    --conditions=@virnucpro/source --ignore-annotations --external:webgpu --external:@tensorflow/tfjs-node --external:@tensorflow/tfjs-node-gpu \
    --banner:js="import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" \
    --outfile="$out/$name.mjs" --log-level=warning
done
du -sh "$out"
