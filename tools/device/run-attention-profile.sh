#!/usr/bin/env bash
# Where short-segment attention loses its time, in one device call:
#   1. GPU time per kernel over one forward (`--profile`): ESM-2 3B on 52-token proteins (bf16, fp8, 16K budget) and
#      DNABERT-S on 150-bp windows of phage lambda (bf16, fp8, 64K budget) — the shares attention, layer norm and the
#      GEMMs take;
#   2. Nsight Compute on one attention_mma launch of each model (speed of light, occupancy, warp stall reasons,
#      memory workload), as text.
# Here:  NO_DAWN=1 bash tools/device/bundle.sh tools/bench/esm2/bench-esm2.ts tools/bench/dnabert/bench-dnabert.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-attention-profile.sh
# Knobs: ESM_RESIDUES (default 50; 99 = 101-token proteins), ESM_BUDGET (default 16384), NCU_PRECISION (default bf16),
#   NCU_SKIP (launches of the kernels skipped before the one profiled, default 40: past the warm-up forward's 36 in
#   bf16; fp8 also runs a calibration pass first, so give it ~200), NCU_KERNELS (default attention_mma; a regex, e.g.
#   'attention_mma|layer_norm_warp_fp8_static_rows' profiles one launch of each in turn), NCU_SEQUENCES (default 600;
#   enough batches past the skipped launches), NCU_ONLY=1 (skip step 1).
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
esm=(--backend cuda --size 3B --length-sets "${ESM_RESIDUES:-50}" --budgets "${ESM_BUDGET:-16384}")
dnabert=(--backend cuda --tokenizer test-data/dnabert/tokenizer.json --fasta test-data/lambda_virus.fa --tokenizer-sequences 0 --budgets 65536 --length-sets 150)
[ "${NCU_ONLY:-}" = 1 ] || for p in bf16 fp8; do
  timeout -k 5 120 node .bundle/bench-esm2.mjs "${esm[@]}" --precision $p --sequences 1000 --profile > "$out/profile-esm2-$p.json" 2>/dev/null
  timeout -k 5 120 node .bundle/bench-dnabert.mjs "${dnabert[@]}" --precision $p --sequences 8000 --profile > "$out/profile-dnabert-150-$p.json" 2>/dev/null
done
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
sections=(--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats)
kernels=${NCU_KERNELS:-attention_mma}; count=$(( $(echo "$kernels" | tr -cd '|' | wc -c) + 1 ))
timeout -k 5 180 "$ncu" --target-processes all --kernel-name "regex:$kernels" --launch-skip "${NCU_SKIP:-40}" --launch-count "$count" "${sections[@]}" \
  node .bundle/bench-esm2.mjs "${esm[@]}" --precision "${NCU_PRECISION:-bf16}" --sequences "${NCU_SEQUENCES:-600}" > "$out/ncu-attention-esm2-${NCU_PRECISION:-bf16}.txt" 2>&1
timeout -k 5 180 "$ncu" --target-processes all --kernel-name regex:attention_mma --launch-skip 24 --launch-count 1 "${sections[@]}" \
  node .bundle/bench-dnabert.mjs "${dnabert[@]}" --precision bf16 --sequences 4000 > "$out/ncu-attention-dnabert-bf16.txt" 2>&1
echo "done $(date -u +%T)"
