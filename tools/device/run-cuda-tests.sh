#!/usr/bin/env bash
# The cuda backend's GPU checks, in one device call: the package's GPU test suite (every kernel against the
# composite kernels on cpu, in fp32, fp16, bf16 and fp8) and ESM-2 parity against the PyTorch fixtures (fp32 at the
# CPU tolerances; fp16/bf16 mean cosine ≥ 0.9999), for the three checkpoint layouts (fp8's accuracy is measured on
# the 3B architecture instead: tools/bench/esm2/fp8-accuracy-esm2.ts).
# Here:  bash ../shared/device/pack.sh && bash tools/device/bundle.sh packages/tfjs-backend-cuda/gpu-test/kernels.gpu.ts tools/bench/esm2/parity-esm2.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-cuda-tests.sh
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
status=0
# The four precisions run side by side (their time goes mostly to the cpu reference kernels).
for p in fp32 fp16 bf16 fp8; do
  timeout 400 node .bundle/kernels.gpu.mjs --precision "$p" > "$out/kernels-$p.txt" 2>&1 &
done
for job in $(jobs -p); do wait "$job" || status=1; done
for p in fp32 fp16 bf16 fp8; do echo "== kernels $p"; grep -v '^ok' "$out/kernels-$p.txt"; done
for p in fp32 fp16 bf16; do
  for model in test-data/esm2 test-data/esm2/fair_esm.pt test-data/esm2/pytorch_model.bin; do
    echo "== parity $p $model"
    timeout 120 node .bundle/parity-esm2.mjs --backend cuda --precision "$p" --model "$model" > "$out/parity.json" 2> "$out/parity.err" || status=1
    tr -d '\n ' < "$out/parity.json"; echo; tail -c 400 "$out/parity.err"
  done
done
exit $status
