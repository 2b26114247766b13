#!/usr/bin/env bash
# Short-segment attention: the A/B of the kernel's occupancy, and where the host's time goes, in one device call:
#   1. DNABERT-S fp8 on 150-bp windows with VIRNUCPRO_CUDA_TRACE=1 (native calls, stream idle gaps) and a V8 CPU
#      profile of the process (`--cpu-prof`), as the bench's wall time per batch is ~15 ms over its GPU time;
#   2. attention_mma compiled for 4 (the compiler's choice, 128 registers), 5 and 6 blocks per SM
#      (VIRNUCPRO_ATTENTION_MIN_BLOCKS): ESM-2 3B bf16 on 52/101/167 tokens (32K budget) and DNABERT-S bf16 and fp8
#      on 150-bp windows (64K budget), one process per setting, alternated over two rounds.
# Here:  NO_DAWN=1 bash tools/device/bundle.sh tools/bench/esm2/bench-esm2.ts tools/bench/dnabert/bench-dnabert.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-attention-occupancy-ab.sh
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
dnabert=(--backend cuda --tokenizer test-data/dnabert/tokenizer.json --fasta test-data/lambda_virus.fa --tokenizer-sequences 0 --budgets 65536 --length-sets 150)
mkdir -p "$out/cpu-prof"
VIRNUCPRO_CUDA_TRACE=1 timeout -k 5 120 node --cpu-prof --cpu-prof-dir="$out/cpu-prof" .bundle/bench-dnabert.mjs "${dnabert[@]}" --precision fp8 --sequences 16000 \
  > "$out/trace-dnabert-fp8.json" 2> "$out/trace-dnabert-fp8.txt"
tail -30 "$out/trace-dnabert-fp8.txt"
for round in 1 2; do
  for mb in 0 5 6; do
    echo "== round $round, VIRNUCPRO_ATTENTION_MIN_BLOCKS=$mb ($(date -u +%T))"
    export VIRNUCPRO_ATTENTION_MIN_BLOCKS=$mb
    timeout -k 5 150 node .bundle/bench-esm2.mjs --backend cuda --precision bf16 --size 3B --length-sets 50:99:165 --budgets 32768 \
      --sequences "${SEQUENCES:-2000}" 2>&1 >/dev/null | grep -o '"residues":\[[0-9]*\]\|"tokensPerSecond":[0-9]*' | paste -sd' ' | sed 's/^/ESM-2 3B bf16: /'
    for p in bf16 fp8; do
      timeout -k 5 120 node .bundle/bench-dnabert.mjs "${dnabert[@]}" --precision $p --sequences 32000 2>&1 >/dev/null \
        | grep -o '"basePairs":\[[0-9]*\]\|"tokensPerSecond":[0-9]*' | paste -sd' ' | sed "s/^/DNABERT-S $p: /"
    done
  done
done
unset VIRNUCPRO_ATTENTION_MIN_BLOCKS
echo "done $(date -u +%T)"
