#!/usr/bin/env bash
# The batch-invariance property tests on the cuda backend, in each precision (tools/bench/invariance/invariance-gpu.ts):
# every kernel and both models, each sequence alone vs in batches of other sizes, offsets and neighbours.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh tools/bench/invariance/invariance-gpu.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-invariance-gpu.sh
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache}
status=0
for p in ${PRECISIONS:-fp32 fp16 bf16 fp8}; do
  timeout -k 5 "${LIMIT_S:-300}" node .bundle/invariance-gpu.mjs --precision "$p" > "$out/invariance-$p.txt" 2>&1 &
done
for job in $(jobs -p); do wait "$job" || status=1; done
for p in ${PRECISIONS:-fp32 fp16 bf16 fp8}; do echo "== invariance $p"; grep -v '^ok' "$out/invariance-$p.txt" | cut -c1-600 | tail -30; done
exit $status
