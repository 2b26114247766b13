#!/usr/bin/env bash
# How far `predict --precision fp8` (and bf16) moves VirNucPro's labels and scores from fp32 (issue 26's accuracy
# bound: labels differing on ≤ 0.5 % of frames, the largest score change reported), in one device call:
#   1. the e2e fixtures (test-data/e2e, the original's tiny models), each precision against fp32 on cuda;
#   2. real genomes, phage lambda and the first SLICE_BP bases of E. coli 536 (.bench-data, carried), with the
#      full-size random models of tools/bench/predict/make_models.py (made in /tmp/models if missing, as
#      run-predict-bench.sh does), at --model-type 300 and 500.
# Each line: rows (frames), labelMismatches, maxAbsScoreDiff, how near fp32 put the frames to the decision
# (flippedMaxDistance, withinMaxScoreDiff) and how the scores moved (scoreShift: median and 99th percentile of |Δ|,
# the mean signed Δ overall and near 0.5; tools/device/compare-predictions.mjs); the fraction is
# labelMismatches / rows. Everything lands in $OUT/fp8-labels.txt.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh tools/device/virnucpro-entry.ts packages/predict/src/features-worker.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-fp8-labels.sh
# Knobs: PRECISIONS compared with fp32 (default "bf16 fp8"; an entry PRECISION:NAME=VALUE[+NAME=VALUE] runs that
# precision with the environment variables set, e.g. "fp8 fp8:VIRNUCPRO_FP8_STATIC_SCALES=0" for an A/B in one call;
# PRECISION/FLAG=VALUE[+FLAG=VALUE] adds predict flags, e.g. "fp8/--refine-margin=0"; both: PRECISION:ENV/FLAGS), BACKEND (cuda; onednn with PRECISIONS="" MODELS=test-data/demo-models
# for a dry run here), MODELS (default /tmp/models), SLICE_BP (default 1000000), LENGTHS (default "300 500").
set -uo pipefail
bundle=${BUNDLE:-.bundle}
out=${OUT:-/tmp/out}; mkdir -p "$out"
log=$out/fp8-labels.txt; : > "$log"
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache}
backend=${BACKEND:-cuda}
precisions=${PRECISIONS-bf16 fp8}
models=${MODELS:-/tmp/models}
work=/tmp/fp8-labels; rm -rf "$work"; mkdir -p "$work"
# The layout the bundled code expects (see run-predict-bench.sh).
mkdir -p worker && cp packages/runtime/worker/*.mjs worker/
cp "$bundle/features-worker.mjs" "$bundle/features-worker.js" && echo '{"type":"module"}' > "$bundle/package.json"
# A PRECISIONS entry as predict's --precision and the environment it runs in (PRECISION:NAME=VALUE).
precision_of() { local p=${1%%:*}; echo "${p%%/*}"; }
env_of() { local e=${1%%/*}; if [[ $e == *:* ]]; then echo "${e#*:}" | tr '+' ' '; fi; }
flags_of() { if [[ $1 == */* ]]; then echo "${1#*/}" | tr '+' ' '; fi; }
v() { # ENTRY PREDICT-ARGS...
  local entry=$1; shift
  env $(env_of "$entry") timeout -k 5 "${STEP_LIMIT_S:-240}" node "$bundle/virnucpro-entry.mjs" predict "$@" $(flags_of "$entry") --precision "$(precision_of "$entry")" --backend "$backend" --force --quiet
}
compare() { # NAME GOT WANT
  printf '%s: ' "$1" | tee -a "$log"
  node tools/device/compare-predictions.mjs "$2" "$3" --tol 1 | tee -a "$log"
}
echo "== e2e fixtures"
for ex in test_with_orfs test_fixed_500bp; do
  for p in fp32 $precisions; do
    v "$p" test-data/e2e/$ex/$ex.fa --length 500 --esm test-data/e2e/esm2-tiny --dnabert test-data/e2e/dnabert-tiny \
      --mlp test-data/e2e/mlp.pth --out-dir "$work/$ex-${p//\//_}" || echo "predict $ex $p failed (rc=$?)" | tee -a "$log"
  done
  for p in $precisions; do compare "e2e $ex, $p vs fp32" "$work/$ex-${p//\//_}" "$work/$ex-fp32"; done
done
echo "== genomes with full-size random models"
if [ ! -f "$models/models.json" ]; then python3 tools/bench/predict/make_models.py --out "$models" 2>&1 | tail -2; fi
genomes=$work/genomes.fa
cat test-data/lambda_virus.fa > "$genomes"
[ -f .bench-data/NC_008253.fna.gz ] && python3 -c 'import gzip, sys; n = int(sys.argv[2]); lines = gzip.open(sys.argv[1], "rt").read().split("\n"); seq = "".join(lines[1:])[:n]; print(">ecoli536_slice_1_%d" % n); print("\n".join(seq[i:i + 80] for i in range(0, len(seq), 80)))' .bench-data/NC_008253.fna.gz "${SLICE_BP:-1000000}" >> "$genomes"
for len in ${LENGTHS:-300 500}; do
  for p in fp32 $precisions; do
    v "$p" "$genomes" --models-dir "$models" --model-type "$len" --token-budget "${TOKEN_BUDGET:-16384}" --out-dir "$work/genomes-$len-${p//\//_}" \
      || echo "predict genomes $len $p failed (rc=$?)" | tee -a "$log"
  done
  for p in $precisions; do compare "lambda + E. coli ${SLICE_BP:-1000000} bp at $len bp, $p vs fp32" "$work/genomes-$len-${p//\//_}" "$work/genomes-$len-fp32"; done
done
# Every run's per-frame results travel back (the scores' distance to the decision is the question random weights raise).
(cd "$work" && find . \( -name 'prediction_results*' -o -name run_summary.json \) -print0 | tar czf "$out/fp8-labels-results.tgz" --null -T -)
