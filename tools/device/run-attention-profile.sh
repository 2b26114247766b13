#!/usr/bin/env bash
# Where short-segment attention loses its time, in one device call:
#   1. GPU time per kernel over one forward (`--profile`): ESM-2 3B on 52-token proteins (bf16, fp8, 16K budget) and
#      DNABERT-S on 150-bp windows of phage lambda (bf16, fp8, 64K budget) — the shares attention, layer norm and the
#      GEMMs take;
#   2. Nsight Compute on one attention_mma launch of each model (speed of light, occupancy, warp stall reasons,
#      memory workload), as text.
# Here:  NO_DAWN=1 bash tools/device/bundle.sh tools/bench/esm2/bench-esm2.ts tools/bench/dnabert/bench-dnabert.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-attention-profile.sh
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
esm=(--backend cuda --size 3B --length-sets 50 --budgets 16384)
dnabert=(--backend cuda --tokenizer test-data/dnabert/tokenizer.json --fasta test-data/lambda_virus.fa --tokenizer-sequences 0 --budgets 65536 --length-sets 150)
for p in bf16 fp8; do
  timeout -k 5 120 node .bundle/bench-esm2.mjs "${esm[@]}" --precision $p --sequences 1000 --profile > "$out/profile-esm2-$p.json" 2>/dev/null
  timeout -k 5 120 node .bundle/bench-dnabert.mjs "${dnabert[@]}" --precision $p --sequences 8000 --profile > "$out/profile-dnabert-150-$p.json" 2>/dev/null
done
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
sections=(--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats --section ComputeWorkloadAnalysis)
timeout -k 5 180 "$ncu" --target-processes all --kernel-name regex:attention_mma --launch-skip 40 --launch-count 1 "${sections[@]}" \
  node .bundle/bench-esm2.mjs "${esm[@]}" --precision bf16 --sequences 600 > "$out/ncu-attention-esm2-bf16.txt" 2>&1
timeout -k 5 180 "$ncu" --target-processes all --kernel-name regex:attention_mma --launch-skip 24 --launch-count 1 "${sections[@]}" \
  node .bundle/bench-dnabert.mjs "${dnabert[@]}" --precision bf16 --sequences 4000 > "$out/ncu-attention-dnabert-bf16.txt" 2>&1
echo "done $(date -u +%T)"
