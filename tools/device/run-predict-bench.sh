#!/usr/bin/env bash
# The `predict` benchmark (tools/bench/predict/), in one device call: full-size random models and 150-bp reads
# from real genomes are made there (nothing big travels), then `virnucpro predict --length 300` end to end on
# one GPU (model loading included) and the PyTorch reference pipeline on the same reads and weights, each with
# nvidia-smi sampling GPU utilisation every 200 ms; then labels and scores compared.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh tools/device/virnucpro-entry.ts packages/predict/src/features-worker.ts
#        (and .bench-data/NC_008253.fna.gz: E. coli 536 from Debian's bowtie-examples; see tools/bench/predict/README.md)
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-predict-bench.sh FRAMES [PRECISION]
# Knobs (environment): READS_ONLY=1 only makes the models and reads; BUNDLE: the bundle folder (default .bundle); OURS_ARGS: more `predict` options; TOKEN_BUDGET (ours, default 32768); OURS=0 / TORCH=0 skip a side;
# TORCH_MODES="eager compile" runs the reference eager and through torch.compile (default: eager); OURS_LIMIT / TORCH_LIMIT
# (seconds, default 560) stop a side that runs too long; TORCH_RECORDS=START:END runs the reference on those records
# only, into /tmp/torch-parts (1 M frames need ~18 min eager: three calls of a third each; with TORCH_MODES=compile
# into /tmp/torch-compile-parts), and TORCH_MERGE=1 joins the parts of that mode (tools/bench/predict/merge_parts.py)
# into the reference's outputs before the comparison. The models stay in /tmp/models and are reused by a later
# call on the same (still warm) machine. Every output ends up in $OUT/predict-bench-FRAMES-PRECISION.tgz (the device returns 8 files).
set -uo pipefail
bundle=${BUNDLE:-.bundle}
out=/tmp/predict-bench; rm -rf "$out"; mkdir -p "$out"
frames=${1:-100000}; precision=${2:-fp16}; budget=${TOKEN_BUDGET:-32768}
trap "tar czf \"${OUT:-/tmp}/predict-bench-$frames-$precision.tgz\" -C \"$out\" . 2>/dev/null" EXIT
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
# The layout the bundled code expects: @virnucpro/predict (featuresWorkerPlugin) loads ./features-worker.js beside it, the runtime ../worker/worker-entry.mjs.
mkdir -p worker && cp packages/runtime/worker/*.mjs worker/
cp "$bundle/features-worker.mjs" "$bundle/features-worker.js" && echo '{"type":"module"}' > "$bundle/package.json"
echo "== models and reads"
[ -f /tmp/models/models.json ] || python3 tools/bench/predict/make_models.py --out /tmp/models 2>&1 | tail -2
# Reads of one size are made once per machine (a 1M-frame set takes a while): a later call reuses them.
reads=/tmp/reads-$frames.fa
# GENOMES: other genomes to sample (default phage lambda and E. coli 536; test-data/ecoli536_1-30000.fa when the 1.5 MB genome cannot travel).
[ -f "$reads.json" ] || python3 tools/bench/predict/make_reads.py --frames "$frames" --out "$reads" ${GENOMES:-test-data/lambda_virus.fa .bench-data/NC_008253.fna.gz} > "$reads.json"
cp "$reads.json" "$out/reads.json"; cat "$out/reads.json"
[ "${READS_ONLY:-0}" != 0 ] && exit 0
sampled() { # NAME LIMIT CMD...: runs CMD with GPU utilisation sampled into $out/NAME-gpu.csv; prints wall seconds
  local name=$1; shift
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits -lms 200 > "$out/$name-gpu.csv" &
  local sampler=$! t0=$(date +%s%N)
  local limit=$1; shift
  timeout "$limit" "$@" > "$out/$name.out" 2> "$out/$name.err"; local rc=$?
  local t1=$(date +%s%N); kill $sampler
  awk -F', ' -v n="$name" -v rc=$rc -v s="$(( (t1 - t0) / 1000000 ))e-3" '{u+=$1; k++; if ($2>m) m=$2} END {printf "%s: rc=%d wall %.1f s, GPU busy %.1f %% (mean of %d samples), peak GPU memory %d MiB\n", n, rc, s, u/k, k, m}' "$out/$name-gpu.csv" | tee -a "$out/summary.txt"
}
if [ "${OURS:-1}" != 0 ]; then
  echo "== ours: virnucpro predict --backend cuda --precision $precision --token-budget $budget"
  rm -rf /tmp/ours
  sampled ours "${OURS_LIMIT:-560}" node "$bundle/virnucpro-entry.mjs" predict "$reads" --models-dir /tmp/models --model-type 300 --backend cuda \
    --precision "$precision" --token-budget "$budget" --out-dir /tmp/ours --force --quiet ${OURS_ARGS:-}
  tail -n 5 "$out/ours.err"; cp /tmp/ours/run_summary.json "$out/run_summary.json" && grep -v '"input"\|"models"\|"esm": "\|"dnabert": "\|"mlp"' "$out/run_summary.json" | tr -d ' \n'; echo
fi
if [ -n "${TORCH_RECORDS:-}" ]; then
  # One mode per part: TORCH_MODES=compile runs the part through torch.compile (later parts on the same machine reuse
  # inductor's cache in /tmp, so their compilation is shorter), its parts in /tmp/torch-compile-parts.
  ref=torch; [ "${TORCH_MODES:-eager}" = compile ] && ref=torch-compile
  part=/tmp/$ref-parts/${TORCH_RECORDS/:/-}; name=$ref-${TORCH_RECORDS/:/-}
  echo "== PyTorch reference (${TORCH_MODES:-eager}), records $TORCH_RECORDS"
  rm -rf "$part"
  sampled "$name" "${TORCH_LIMIT:-560}" python3 tools/bench/predict/pytorch_predict.py "$reads" --models /tmp/models --length 300 --out-dir "$part" --records "$TORCH_RECORDS" $([ "$ref" = torch-compile ] && echo --compile)
  tail -n 8 "$out/$name.err"; cp "$out/$name.out" "$part/result.json"; cat "$part/result.json"
elif [ "${TORCH:-1}" != 0 ]; then
  # TORCH_MODES: eager (default) and/or compile (torch.compile, its compilation reported apart), each its own run.
  for mode in ${TORCH_MODES:-eager}; do
    name=torch; [ "$mode" = compile ] && name=torch-compile
    echo "== PyTorch reference ($mode)"
    rm -rf "/tmp/$name"
    sampled "$name" "${TORCH_LIMIT:-560}" python3 tools/bench/predict/pytorch_predict.py "$reads" --models /tmp/models --length 300 --out-dir "/tmp/$name" $([ "$mode" = compile ] && echo --compile)
    tail -n 8 "$out/$name.err"; cat "$out/$name.out"
  done
fi
if [ "${TORCH_MERGE:-0}" != 0 ]; then
  ref=torch; [ "${TORCH_MODES:-eager}" = compile ] && ref=torch-compile
  echo "== PyTorch reference parts joined (/tmp/$ref-parts)"
  rm -rf "/tmp/$ref"
  python3 tools/bench/predict/merge_parts.py "/tmp/$ref" $(ls -d /tmp/$ref-parts/* | sort -t/ -k4 -n) | tee "$out/$ref-merged.json"
fi
for name in torch torch-compile; do
  if [ -d /tmp/ours ] && [ -f "/tmp/$name/prediction_results.txt" ]; then
    echo "== outputs compared with $name (labels, max |Δscore|)"
    node tools/device/compare-predictions.mjs /tmp/ours "/tmp/$name" --tol 0.05 | tee "$out/compare-$name.json"
  fi
done
