#!/usr/bin/env bash
# ESM-2 3B (random weights) and the fp8 path in one device call, each step alone on the GPU, most important first:
# ours end to end in bf16, fp8 and fp8 with fast accumulation (bench-esm2, with kernel profiles), the fp8 A/B
# (fp8-accuracy-esm2: which linear layers stay bf16, fast accumulation; mean-embedding cosine against fp32 at
# 52/101/167 tokens, batch invariance, tokens/s), PyTorch fp16 eager and torch.compile (dynamic=True, default mode)
# when TORCH=1, the kernel suite in fp8 (KERNELS=all: fp32/fp16/bf16/fp8 side by side), then the four linear layers
# alone in fp8 and bf16 with and without fast accumulation (fp8-linear-probe). Proteins of 52 tokens (frames of
# 150-bp reads; LENGTHS=50:99:165 for all three). BUDGET_S bounds the whole script: each step gets at most what is
# left, a step with less than 15 s left is skipped (said so). Everything lands in $OUT/fp8-bench.tgz.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh packages/tfjs-backend-cuda/gpu-test/kernels.gpu.ts \
#          tools/bench/esm2/bench-esm2.ts tools/bench/esm2/fp8-accuracy-esm2.ts tools/bench/gpu/fp8-linear-probe.ts
# There: source .device/on-device.sh && BUDGET_S=360 bash tools/device/run-fp8-bench.sh [SEQUENCES]
set -uo pipefail
dest=${OUT:-/tmp/out}
out=$(mktemp -d)
mkdir -p "$dest"
n=${1:-8000}
size=${SIZE:-3B}
lengths=${LENGTHS:-50}
budget=${BUDGET_S:-100000}
torch_lengths=$(echo "$lengths" | tr ':' '\n' | while read -r l; do echo $((l + 2)); done | paste -sd:)
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
left() { echo $((budget - SECONDS)); }
step() {
  local name=$1 limit=$2 started=$SECONDS; shift 2
  (($(left) < limit)) && limit=$(left)
  if ((limit < 15)); then echo "== $name skipped ($(left) s left of BUDGET_S)"; return; fi
  echo "== $name (limit ${limit}s)"
  timeout "$limit" "$@" > "$out/$name.json" 2> "$out/$name.err"
  echo "rc=$? in $((SECONDS - started)) s"
  tail -n 9 "$out/$name.err" | cut -c1-600
}
# (timeout runs commands, not shell functions: the common arguments are an array)
bench=(node .bundle/bench-esm2.mjs --backend cuda --size "$size" --length-sets "$lengths" --budgets 16384,32768 --sequences "$n" --profile)
step ours-bf16 150 "${bench[@]}" --precision bf16
step ours-fp8 150 "${bench[@]}" --precision fp8
step ours-fp8-fast-accum 150 env VIRNUCPRO_FP8_FAST_ACCUM=1 "${bench[@]}" --precision fp8
step fp8-accuracy 300 node .bundle/fp8-accuracy-esm2.mjs --size "$size" --sequences 48 --throughput-sequences "$n"
[ -n "${TORCH:-}" ] && step torch-fp16 420 python3 tools/bench/esm2/pytorch_esm2.py --size "$size" --length-sets "$torch_lengths" --token-budgets 16384,32768 --sequences "$n" --modes eager,compile
kernel_precisions=fp8
[ "${KERNELS:-}" = all ] && kernel_precisions="fp32 fp16 bf16 fp8"
if (($(left) >= 30)); then
  for p in $kernel_precisions; do timeout $(($(left) - 5)) node .bundle/kernels.gpu.mjs --precision "$p" > "$out/kernels-$p.txt" 2>&1 & done
  wait
  for f in "$out"/kernels-*.txt; do echo "== $(basename "$f")"; grep -v '^ok' "$f" | tail -8 | cut -c1-400; grep -c '^ok' "$f"; done
else
  echo "== kernels skipped ($(left) s left of BUDGET_S)"
fi
step fp8-linear-probe 60 node .bundle/fp8-linear-probe.mjs --rows 16384
step fp8-linear-probe-fast-accum 60 env VIRNUCPRO_FP8_FAST_ACCUM=1 node .bundle/fp8-linear-probe.mjs --rows 16384
echo "total $SECONDS s"
tar czf "$dest/fp8-bench.tgz" -C "$out" .
