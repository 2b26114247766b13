#!/usr/bin/env bash
# DNABERT-S on the cuda backend, in one device call: fixture parity (fp32 at the CPU tolerances, fp16/bf16 means
# cosine ≥ 0.9999), the PyTorch reference's own fixture check, then throughput of the real 117M size on windows of
# the phage lambda genome (150/300/500 bp: the DNA of frames of 150-bp reads and of 300/500-bp chunks) — ours
# (packed, cuda fp16 and bf16, means against fp32) against PyTorch MosaicBERT (fp16, padded length-sorted batches,
# budgets 4K–32K) on the same token counts.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh tools/bench/dnabert/bench-dnabert.ts tools/bench/dnabert/parity-dnabert.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-dnabert-bench.sh [SEQUENCES]
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
n=${1:-8000}
step() { local name=$1 limit=$2; shift 2; echo "== $name"; timeout "$limit" "$@" > "$out/$name.json" 2> "$out/$name.err"; echo "rc=$?"; tail -n 12 "$out/$name.err" | cut -c1-400; }
for p in fp32 fp16 bf16; do
  step "parity-$p" 60 node .bundle/parity-dnabert.mjs --backend cuda --precision "$p"
  grep -E '"pass"|MaxAbs|minCosine' "$out/parity-$p.json" | tr -d ' \n'; echo
done
step torch-check 60 python3 tools/bench/dnabert/pytorch_dnabert.py --check test-data/dnabert/tiny
grep -A4 '"check"' "$out/torch-check.json" | tr -d ' \n'; echo
common=(--tokenizer test-data/dnabert/tokenizer.json --fasta test-data/lambda_virus.fa --length-sets 150:300:500 --tokenizer-sequences 0 --sequences "$n")
step cuda-fp32 120 node .bundle/bench-dnabert.mjs --backend cuda --precision fp32 "${common[@]}" --budgets 16384 --means-out /tmp/dnabert-means-fp32.bin --lengths-out /tmp/dnabert-lengths.json
for p in fp16 bf16; do
  step "cuda-$p" 150 node .bundle/bench-dnabert.mjs --backend cuda --precision "$p" "${common[@]}" --budgets 8192,16384,32768,65536 --means-ref /tmp/dnabert-means-fp32.bin $([ $p = fp16 ] && echo --profile)
done
step torch-fp16 240 python3 tools/bench/dnabert/pytorch_dnabert.py --token-lengths /tmp/dnabert-lengths.json --token-budgets 4096,8192,16384,32768,65536
grep -A12 '"best"' "$out/torch-fp16.json" | tr -d ' \n'; echo
