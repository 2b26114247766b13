#!/usr/bin/env bash
# Bundles tools/bench/consensus/bench-consensus.ts into OUT_DIR (default /tmp/consensus-bench) for plain node.
# Run from the repo root. For the optional tfjs comparison (--tfjs wasm) the wasm binaries are copied too:
#   VIRNUCPRO_TFJS_WASM_DIR=/tmp/consensus-bench/wasm node /tmp/consensus-bench/bench-consensus.mjs --tfjs wasm
set -euo pipefail
out=${OUT_DIR:-/tmp/consensus-bench}
mkdir -p "$out/wasm"
cp node_modules/@tensorflow/tfjs-backend-wasm/dist/*.wasm "$out/wasm/" 2>/dev/null || true
npx esbuild tools/bench/consensus/bench-consensus.ts --bundle --platform=node --format=esm --target=node20 \
  --conditions=@virnucpro/source --ignore-annotations --external:webgpu --external:@tensorflow/tfjs-node --external:@tensorflow/tfjs-node-gpu \
  --banner:js="import { createRequire as __cr } from 'module'; import { fileURLToPath as __fu } from 'url'; import { dirname as __dn } from 'path'; const require = __cr(import.meta.url); const __filename = __fu(import.meta.url); const __dirname = __dn(__filename);" \
  --outfile="$out/bench-consensus.mjs" --log-level=warning
echo "$out"
