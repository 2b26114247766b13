#!/usr/bin/env bash
# Bundles the host-pipeline bench (host-pipeline-entry.ts: `virnucpro predict` on simulated devices) into
# OUT_DIR (default .bundle-host) for plain node, here or on the GPU machine (carry the folder there):
#   OUT_DIR=.bundle-host bash tools/bench/host-pipeline/bundle.sh   (from the repo root)
# Layout: OUT_DIR/b/host-pipeline.mjs with simulated-scorer.mjs beside it, and the runtime's worker entry in
# OUT_DIR/worker/ (where the bundled runtime looks for it, ../worker/ of the bundle).
# On the GPU machine, where what travels is limited, the device bundle can hold it instead (its chunks shared):
#   NO_DAWN=1 bash tools/device/bundle.sh tools/device/virnucpro-entry.ts packages/predict/src/features-worker.ts tools/bench/host-pipeline/host-pipeline-entry.ts
#   there: cp tools/bench/host-pipeline/*.mjs .bundle/ && cp .bundle/host-pipeline-entry.mjs .bundle/host-pipeline.mjs (worker/ as run-scaling.sh makes it)
set -euo pipefail
out=${OUT_DIR:-.bundle-host}
rm -rf "$out"; mkdir -p "$out/b" "$out/worker"
cp packages/runtime/worker/*.mjs "$out/worker/"
cp tools/bench/host-pipeline/simulated-scorer.mjs tools/bench/host-pipeline/bench-host-pipeline.mjs "$out/b/"
npx esbuild tools/bench/host-pipeline/host-pipeline-entry.ts --bundle --platform=node --format=esm --target=node20 \
  --conditions=@virnucpro/source --ignore-annotations --external:webgpu --external:koffi --external:@tensorflow/tfjs-node --external:@tensorflow/tfjs-node-gpu \
  --banner:js="import { createRequire as __cr } from 'module'; import { fileURLToPath as __fu } from 'url'; import { dirname as __dn } from 'path'; const require = __cr(import.meta.url); globalThis.__filename ??= __fu(import.meta.url); globalThis.__dirname ??= __dn(globalThis.__filename);" \
  --outfile="$out/b/host-pipeline.mjs" --log-level=warning
echo '{"type":"module"}' > "$out/b/package.json"
du -sh "$out"
