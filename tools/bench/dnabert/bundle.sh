#!/usr/bin/env bash
# Bundles the DNABERT bench/parity scripts (and embed-host.ts) into OUT_DIR (default /tmp/dnabert-bench) for plain `node`.
# Same esbuild flags as tools/device/bundle.sh plus __dirname/__filename, which the bundled
# tfjs-backend-wasm needs in an ES module. The wasm binaries are copied to OUT_DIR/wasm; run with
#   VIRNUCPRO_TFJS_WASM_DIR=OUT_DIR/wasm node OUT_DIR/bench-dnabert.mjs --backend wasm
set -euo pipefail
out=${OUT_DIR:-/tmp/dnabert-bench}
mkdir -p "$out/wasm"
cp node_modules/@tensorflow/tfjs-backend-wasm/dist/*.wasm "$out/wasm/"
for entry in tools/bench/dnabert/bench-dnabert.ts tools/bench/dnabert/parity-dnabert.ts tools/bench/dnabert/embed-host.ts; do
  name=$(basename "${entry%.*}")
  npx esbuild "$entry" --bundle --platform=node --format=esm --target=node20 \
    --conditions=@virnucpro/source --ignore-annotations --external:webgpu --external:@tensorflow/tfjs-node --external:@tensorflow/tfjs-node-gpu \
    --banner:js="import { createRequire as __cr } from 'module'; import { fileURLToPath as __fu } from 'url'; import { dirname as __dn } from 'path'; const require = __cr(import.meta.url); const __filename = __fu(import.meta.url); const __dirname = __dn(__filename);" \
    --outfile="$out/$name.mjs" --log-level=warning
done
# @virnucpro/dnabert's BpePool starts ./bpe-worker.js beside its own code: an ES module, so a package.json says so.
npx esbuild packages/dnabert/src/bpe-worker.ts --bundle --platform=node --format=esm --target=node20 \
  --conditions=@virnucpro/source --outfile="$out/bpe-worker.js" --log-level=warning
echo '{ "type": "module" }' > "$out/package.json"
echo "$out"
