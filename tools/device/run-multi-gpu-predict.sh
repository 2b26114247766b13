#!/usr/bin/env bash
# `virnucpro predict --backend webgpu --devices 0,1` on a host of identical GPUs (bundled CLI with worker
# processes): does each worker get its own GPU, do the outputs equal a one-GPU run, how is work shared.
# Here: bash tools/device/bundle.sh tools/device/virnucpro-entry.ts packages/predict/src/features-worker.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-multi-gpu-predict.sh [BACKEND] [DEVICES...]
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
backend=${1:-webgpu}; shift || true
# the layout the bundled code expects: @virnucpro/predict (featuresWorkerPlugin) loads ./features-worker.js beside it, the runtime ../worker/worker-entry.mjs
mkdir -p worker && cp packages/runtime/worker/*.mjs worker/
cp .bundle/features-worker.mjs .bundle/features-worker.js && echo '{"type":"module"}' > .bundle/package.json
reads=${READS:-200000}
node tools/bench/runtime/make-reads.mjs "$reads" 300 > /tmp/reads.fa
v() { node .bundle/virnucpro-entry.mjs predict /tmp/reads.fa --models-dir test-data/demo-models --model-type 300 --backend "$backend" --quiet "$@"; }
{
for sel in "$@"; do
  echo "== --$sel"
  rm -rf "/tmp/run-$sel"
  ( while sleep 2; do command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv,noheader | tr '\n' ' ' && echo; done ) > "/tmp/smi-$sel.txt" &
  sampler=$!
  start=$(date +%s%N); v "--$sel" --out-dir "/tmp/run-$sel"; rc=$?; end=$(date +%s%N)
  kill $sampler 2>/dev/null
  echo "rc=$rc wall=$(( (end - start) / 1000000 )) ms"
  node -e 'const s=require(process.argv[1]); console.log(JSON.stringify({frames:s.frames, backend:s.backend, devices:s.devices, stageSeconds:s.stageSeconds, framesPerSecond:+s.framesPerSecond.toFixed(1), workerStats:s.workerStats}))' "/tmp/run-$sel/run_summary.json"
  sort -u "/tmp/smi-$sel.txt" | tail -4
done
first=$1; for sel in "${@:2}"; do echo "== $first vs $sel"; node tools/device/compare-predictions.mjs "/tmp/run-$sel" "/tmp/run-$first" --tol 1e-5; done
} 2>&1 | tee "$out/multi-gpu-predict.log"
