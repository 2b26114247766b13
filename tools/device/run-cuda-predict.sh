#!/usr/bin/env bash
# `virnucpro predict` and `embed esm2` end to end on the cuda backend (bundled CLI, in-process), in one device
# call: the e2e fixtures in fp32 (must match as on cpu, --tol 1e-5) and fp16 (labels; scores within fp16 noise),
# the demo genome cuda vs cpu, `embed esm2`, and the fp16-overflow recompute (tools/bench/esm2/overflow-esm2.ts).
# Here:  bash ../shared/device/pack.sh && bash tools/device/bundle.sh tools/device/virnucpro-entry.ts packages/predict/src/features-worker.ts tools/bench/esm2/overflow-esm2.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-cuda-predict.sh
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache}
# the layout the bundled code expects (the default mode runs the models in a worker thread, loaded by path):
# @virnucpro/predict (featuresWorkerPlugin) loads ./features-worker.js beside it, the runtime ../worker/worker-entry.mjs
mkdir -p worker && cp packages/runtime/worker/*.mjs worker/
cp .bundle/features-worker.mjs .bundle/features-worker.js && echo '{"type":"module"}' > .bundle/package.json
v() { node .bundle/virnucpro-entry.mjs "$@"; }
{
for p in fp32 fp16; do
  for ex in test_with_orfs test_fixed_500bp; do
    echo "== e2e fixture $ex on cuda $p"
    v predict test-data/e2e/$ex/$ex.fa --length 500 --esm test-data/e2e/esm2-tiny --dnabert test-data/e2e/dnabert-tiny --mlp test-data/e2e/mlp.pth \
      --backend cuda --precision $p --out-dir /tmp/e2e-$ex-$p --quiet; echo "rc=$?"
    node tools/device/compare-predictions.mjs /tmp/e2e-$ex-$p test-data/e2e/$ex --tol "$([ $p = fp32 ] && echo 1e-5 || echo 5e-2)"
  done
done
echo "== demo genome: cuda fp32 against cpu"
v predict test-data/lambda_virus.fa --models-dir test-data/demo-models --out-dir /tmp/p-cuda --backend cuda --precision fp32 --quiet; echo "rc=$?"
v predict test-data/lambda_virus.fa --models-dir test-data/demo-models --out-dir /tmp/p-cpu --backend cpu --quiet; echo "rc=$?"
node tools/device/compare-predictions.mjs /tmp/p-cuda /tmp/p-cpu --tol 1e-5
grep -E '"backend"|"precision"|"gpu"|"nvrtcVersion"|"cublasLtVersion"|"oomSplits"|"fp32Recomputes"' /tmp/p-cuda/run_summary.json
echo "== auto picks cuda"
v predict test-data/lambda_virus.fa --models-dir test-data/demo-models --out-dir /tmp/p-auto --quiet; echo "rc=$?"
grep -E '"backend"|"precision"' /tmp/p-auto/run_summary.json
echo "== embed esm2 on cuda"
v embed esm2 --help > /dev/null 2>&1 && echo "(embed esm2 available)"
echo "== fp16 overflow recomputed in fp32"
node .bundle/overflow-esm2.mjs --backend cuda
} 2>&1 | tee "$out/cuda-predict.log"
cp /tmp/p-cuda/run_summary.json "$out/run_summary_cuda.json" 2>/dev/null || true
