#!/usr/bin/env bash
# `virnucpro predict` end to end on the GPU machine (bundled CLI, in-process): which backend `auto` picks
# there, the e2e parity fixtures on webgpu, and webgpu vs cpu on the demo genome.
# Usage there: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-predict-gpu.sh
# (after `bash tools/device/bundle.sh tools/device/virnucpro-entry.ts packages/predict/src/features-worker.ts` here).
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
# the layout the bundled code expects (the default mode runs the models in a worker thread, loaded by path):
# @virnucpro/predict (featuresWorkerPlugin) loads ./features-worker.js beside it, the runtime ../worker/worker-entry.mjs
mkdir -p worker && cp packages/runtime/worker/*.mjs worker/
cp .bundle/features-worker.mjs .bundle/features-worker.js && echo '{"type":"module"}' > .bundle/package.json
v() { node .bundle/virnucpro-entry.mjs "$@"; }
{
echo "== auto backend on the demo genome"
v predict test-data/lambda_virus.fa --models-dir test-data/demo-models --out-dir /tmp/p-auto --quiet; echo "rc=$?"
grep -E '"backend"|framesPerSecond|"seconds"' /tmp/p-auto/run_summary.json | head -5
echo "== cpu backend, same input"
v predict test-data/lambda_virus.fa --models-dir test-data/demo-models --out-dir /tmp/p-cpu --backend cpu --quiet; echo "rc=$?"
node tools/device/compare-predictions.mjs /tmp/p-auto /tmp/p-cpu --tol 1e-5
for ex in test_with_orfs test_fixed_500bp; do
  echo "== e2e fixture $ex on webgpu"
  v predict test-data/e2e/$ex/$ex.fa --length 500 --esm test-data/e2e/esm2-tiny --dnabert test-data/e2e/dnabert-tiny --mlp test-data/e2e/mlp.pth --backend webgpu --out-dir /tmp/e2e-$ex --quiet; echo "rc=$?"
  node tools/device/compare-predictions.mjs /tmp/e2e-$ex test-data/e2e/$ex --tol 1e-5
done
} 2>&1 | tee "$out/predict-gpu.log"
cp /tmp/p-auto/run_summary.json "$out/run_summary_auto.json" 2>/dev/null || true
