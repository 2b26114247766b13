#!/usr/bin/env bash
# ESM-2 3B throughput, ours (cuda fp16 and bf16) against PyTorch (transformers EsmModel, fp16, SDPA, sorted padded
# batches, token budgets 4K–32K) in one device call, on protein lengths of real inputs: frames of 150-bp reads
# (50 residues = 52 tokens) and of 300/500-bp chunks (99/165 residues = 101/167 tokens). Also the fp16/bf16 mean
# embeddings of the 3B architecture (random weights) against fp32, and webgpu (fp32, no tensor cores) for reference.
# Here:  bash ../shared/device/pack.sh && bash tools/device/bundle.sh tools/bench/esm2/bench-esm2.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-cuda-bench.sh [SEQUENCES]
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
n=${1:-2000}
step() { local name=$1 limit=$2; shift 2; echo "== $name"; timeout "$limit" "$@" > "$out/$name.json" 2> "$out/$name.err"; echo "rc=$?"; tail -n 12 "$out/$name.err"; }
step cuda-fp32-means 240 node .bundle/bench-esm2.mjs --backend cuda --precision fp32 --size 3B --length-sets 99 --budgets 4096 --sequences 16 --means-out /tmp/means-fp32.bin
for p in fp16 bf16; do
  step "cuda-$p" 400 node .bundle/bench-esm2.mjs --backend cuda --precision "$p" --size 3B --length-sets 50:99:165 --budgets 8192,16384,32768 --sequences "$n" --means-ref /tmp/means-fp32.bin
done
# webgpu is ~30× slower: a small sample per length (Dawn needs the Vulkan loader from .device/).
step webgpu-fp32 400 node .bundle/bench-esm2.mjs --backend webgpu --size 3B --length-sets 50:99:165 --budgets 4096 --sequences 64
step torch-fp16 400 python3 tools/bench/esm2/pytorch_esm2.py --size 3B --length-sets 52:101:167 --token-budgets 4096,8192,16384,32768 --sequences "$n"
