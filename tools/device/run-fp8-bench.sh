#!/usr/bin/env bash
# ESM-2 3B (random weights) and the fp8 path in one device call, each step alone on the GPU: the four linear layers
# alone in fp8 and bf16 (fp8-linear-probe: GEMM mode, ms, distance), the fp8 A/B (which
# linear layers stay bf16: mean-embedding cosine against fp32, batch invariance, tokens/s), ours in bf16 and fp8
# (bench-esm2, with a kernel profile of fp8), PyTorch fp16 eager and torch.compile (dynamic=True, default mode) when
# TORCH=1, on proteins of 52 tokens (frames of 150-bp reads; LENGTHS=50:99:165 for all three), then the kernel suite
# in fp32/fp16/bf16/fp8 (and fp8 with out and fc2 in bf16). Everything lands in $OUT/fp8-bench.tgz.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh packages/tfjs-backend-cuda/gpu-test/kernels.gpu.ts \
#          tools/bench/esm2/bench-esm2.ts tools/bench/esm2/fp8-accuracy-esm2.ts tools/bench/gpu/fp8-linear-probe.ts
# There: source .device/on-device.sh && bash tools/device/run-fp8-bench.sh [SEQUENCES]
set -uo pipefail
dest=${OUT:-/tmp/out}
out=$(mktemp -d)
mkdir -p "$dest"
n=${1:-8000}
lengths=${LENGTHS:-50}
torch_lengths=$(echo "$lengths" | tr ':' '\n' | while read -r l; do echo $((l + 2)); done | paste -sd:)
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
step() { local name=$1 limit=$2; shift 2; echo "== $name"; timeout "$limit" "$@" > "$out/$name.json" 2> "$out/$name.err"; echo "rc=$?"; tail -n 9 "$out/$name.err" | cut -c1-600; }
step fp8-linear-probe 120 node .bundle/fp8-linear-probe.mjs --rows 16384
step fp8-accuracy 300 node .bundle/fp8-accuracy-esm2.mjs --size 3B --sequences 48 --throughput-sequences "$n"
step ours-bf16 150 node .bundle/bench-esm2.mjs --backend cuda --precision bf16 --size 3B --length-sets "$lengths" --budgets 16384,32768 --sequences "$n"
step ours-fp8 150 node .bundle/bench-esm2.mjs --backend cuda --precision fp8 --size 3B --length-sets "$lengths" --budgets 16384,32768 --sequences "$n" --profile
[ -n "${TORCH:-}" ] && step torch-fp16 420 python3 tools/bench/esm2/pytorch_esm2.py --size 3B --length-sets "$torch_lengths" --token-budgets 16384,32768 --sequences "$n" --modes eager,compile
for p in fp32 fp16 bf16 fp8; do timeout 300 node .bundle/kernels.gpu.mjs --precision "$p" > "$out/kernels-$p.txt" 2>&1 & done
VIRNUCPRO_FP8_BF16_LAYERS=out,fc2 timeout 300 node .bundle/kernels.gpu.mjs --precision fp8 > "$out/kernels-fp8-out-fc2-bf16.txt" 2>&1 &
wait
for f in "$out"/kernels-*.txt; do echo "== $(basename "$f")"; grep -v '^ok' "$f" | tail -8 | cut -c1-400; done
tar czf "$dest/fp8-bench.tgz" -C "$out" .
