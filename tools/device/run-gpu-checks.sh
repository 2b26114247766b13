#!/usr/bin/env bash
# After a kernel change: the kernel suite in fp32, fp16, bf16 and fp8 and the batch-invariance tests (bf16: kernels,
# models, full widths; fp16: kernels, models; fp8: models, full widths), all side by side, in one device call.
# Here:  NO_DAWN=1 bash tools/device/bundle.sh packages/tfjs-backend-cuda/gpu-test/kernels.gpu.ts tools/bench/invariance/invariance-gpu.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-gpu-checks.sh
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
status=0
for p in fp32 fp16 bf16 fp8; do timeout -k 5 "${LIMIT_S:-300}" node .bundle/kernels.gpu.mjs --precision "$p" > "$out/kernels-$p.txt" 2>&1 & done
timeout -k 5 "${LIMIT_S:-300}" node .bundle/invariance-gpu.mjs --precision bf16 --parts kernels,models,full > "$out/invariance-bf16.txt" 2>&1 &
timeout -k 5 "${LIMIT_S:-300}" node .bundle/invariance-gpu.mjs --precision fp16 --parts kernels,models > "$out/invariance-fp16.txt" 2>&1 &
timeout -k 5 "${LIMIT_S:-300}" node .bundle/invariance-gpu.mjs --precision fp8 --parts models,full > "$out/invariance-fp8.txt" 2>&1 &
for job in $(jobs -p); do wait "$job" || status=1; done
for f in kernels-fp32 kernels-fp16 kernels-bf16 kernels-fp8 invariance-bf16 invariance-fp16 invariance-fp8; do
  echo "== $f"; grep -h 'passed\|^FAIL\|blocks per SM' "$out/$f.txt" | cut -c1-200 | tail -12
done
exit $status
