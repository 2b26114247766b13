#!/usr/bin/env bash
# The A/B of one fp8 switch of the cuda backend, NAME=1 (on) against NAME=0 (off), in one device call:
#   1. the fp8 kernel suite and fp8 batch invariance (models, full widths), with the switch as it defaults;
#   2. ESM-2 3B fp8 on 52/101/167 tokens at a 32K budget (2 batches in flight), and with DNABERT=1 also DNABERT-S
#      fp8 on 150/500-bp windows of phage lambda at 64K, one process per setting, alternated over two rounds, with a
#      kernel profile of ESM-2's batch in round 1;
#   3. the whole fp8 model's mean-embedding cosine to fp32 (fp8-accuracy-esm2 --variants 1), on and off.
# Usage: bash tools/device/run-fp8-env-ab.sh NAME   (e.g. VIRNUCPRO_FP8_STATIC_SCALES; run-fp8-*-ab.sh name theirs)
# Here:  NO_DAWN=1 bash tools/device/bundle.sh packages/tfjs-backend-cuda/gpu-test/kernels.gpu.ts tools/bench/invariance/invariance-gpu.ts tools/bench/esm2/bench-esm2.ts tools/bench/dnabert/bench-dnabert.ts tools/bench/esm2/fp8-accuracy-esm2.ts
# Knobs: SEQUENCES (ESM-2, default 3000), DNABERT (1: also DNABERT-S), DNABERT_SEQUENCES (default 32000), ROUNDS
# (default 2), ACCURACY (0: skip step 3; the means of 32 fixed proteins are compared byte for byte on and off anyway).
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
name=${1:?usage: run-fp8-env-ab.sh NAME}
status=0
timeout -k 5 240 node .bundle/kernels.gpu.mjs --precision fp8 > "$out/kernels-fp8.txt" 2>&1 || status=1 &
timeout -k 5 240 node .bundle/invariance-gpu.mjs --precision fp8 --parts models,full > "$out/invariance-fp8.txt" 2>&1 || status=1 &
wait
for f in kernels-fp8 invariance-fp8; do echo "== $f"; grep -h 'passed\|^FAIL\|static\|chain\|linear.*gelu' "$out/$f.txt" | cut -c1-260 | tail -12; done
dnabert=(--tokenizer test-data/dnabert/tokenizer.json --fasta test-data/lambda_virus.fa --tokenizer-sequences 0 --budgets 65536 --length-sets 150:500 --sequences "${DNABERT_SEQUENCES:-32000}")
for round in $(seq "${ROUNDS:-2}"); do
  for v in 1 0; do
    profile=(); [ "$round" = 1 ] && profile=(--profile --means-out "$out/means-$name=$v.f32")
    env "$name=$v" timeout -k 5 150 node .bundle/bench-esm2.mjs --backend cuda --precision fp8 --size 3B --length-sets 50:99:165 --budgets 32768 \
      --sequences "${SEQUENCES:-3000}" "${profile[@]}" > "$out/esm2-fp8-$name=$v-round$round.json" 2> "$out/esm2-fp8-$name=$v-round$round.err"
    grep -o '"residues":\[[0-9]*\]\|"tokensPerSecond":[0-9]*' "$out/esm2-fp8-$name=$v-round$round.err" | paste -sd' ' | sed "s/^/ESM-2 3B, round $round, $name=$v: /"
    [ -n "${DNABERT:-}" ] && env "$name=$v" timeout -k 5 120 node .bundle/bench-dnabert.mjs --backend cuda --precision fp8 "${dnabert[@]}" 2>&1 >/dev/null \
      | grep -o '"basePairs":\[[0-9]*\]\|"tokensPerSecond":[0-9]*' | paste -sd' ' | sed "s/^/DNABERT-S, round $round, $name=$v: /"
  done
done
cmp -s "$out/means-$name=1.f32" "$out/means-$name=0.f32" && echo "means of 32 proteins, $name=1 vs 0: the same bytes" || echo "means of 32 proteins, $name=1 vs 0: DIFFER"
[ "${ACCURACY:-1}" = 0 ] || for v in 1 0; do
  env "$name=$v" timeout -k 5 200 node .bundle/fp8-accuracy-esm2.mjs --size 3B --sequences 48 --variants 1 > "$out/accuracy-$name=$v.json" 2>/dev/null
  echo "accuracy, $name=$v: $(grep -o '"byLength":\[[^]]*\]\|"aloneVsBatchMaxAbsDiff":[0-9.e-]*' "$out/accuracy-$name=$v.json" | tr -d '\n' | cut -c1-600)"
done
echo "done $(date -u +%T)"
exit $status
