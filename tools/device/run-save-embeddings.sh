#!/usr/bin/env bash
# `predict --save-embeddings` on one GPU, in one device call: the same reads and full-size random models as the
# predict benchmark (run-predict-bench.sh, READS_ONLY), `predict` without the option, then with it (fp32 and fp16
# features), each timed with its run summary; whether the prediction files are the same bytes with the option as
# without it; and whether `classify --features` on the saved fp32 features writes predict's three files byte for
# byte — in fp8 the frames near 0.5 are refined in bf16, so this is where the saved features must be the refined ones.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh tools/device/virnucpro-entry.ts packages/predict/src/features-worker.ts
#        (and .bench-data/NC_008253.fna.gz, as for run-predict-bench.sh)
# There: source .device/on-device.sh && bash tools/device/run-save-embeddings.sh FRAMES PRECISION
# The summary lines go to stdout and $OUT/save-embeddings-FRAMES-PRECISION.txt.
set -uo pipefail
frames=${1:-100000}; precision=${2:-fp8}
work=/tmp/save-embeddings; rm -rf "$work"; mkdir -p "$work"
summary=${OUT:-/tmp}/save-embeddings-$frames-$precision.txt; : > "$summary"
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache}
say() { echo "$@" | tee -a "$summary"; }
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) | $(nproc) cores"
READS_ONLY=1 OUT=/tmp bash tools/device/run-predict-bench.sh "$frames" "$precision" > "$work/setup.log" 2>&1; tail -n 2 "$work/setup.log"
reads=/tmp/reads-$frames.fa
mlp=/tmp/models/$(node -e 'console.log(require("/tmp/models/models.json").mlp["300"])')
run() { # NAME ARGS...: one predict run, its wall time and summary
  local name=$1; shift
  rm -rf "/tmp/out-$name"
  local t0=$(date +%s%N)
  node .bundle/virnucpro-entry.mjs predict "$reads" --models-dir /tmp/models --model-type 300 --backend cuda --precision "$precision" \
    --token-budget 32768 --out-dir "/tmp/out-$name" "$@" > "$work/$name.out" 2> "$work/$name.err"
  local rc=$? t1=$(date +%s%N)
  say "$name: rc=$rc wall $(( (t1 - t0) / 1000000 )) ms | $(node -e 'const s=require(process.argv[1]); console.log("stages", JSON.stringify(s.stageSeconds), "frames", s.frames, "frames/s", s.framesPerSecond, "peakRss", Math.round(s.peakRssBytes/1e6), "MB", "refined", s.refinement?.frames, "embeddings", JSON.stringify(s.embeddings))' "/tmp/out-$name/run_summary.json" 2>&1 | head -c 500)"
  [ $rc = 0 ] || tail -n 5 "$work/$name.err" | tee -a "$summary"
}
same() { # A B FILES...: byte for byte
  local a=$1 b=$2; shift 2; local line=""
  for f in "$@"; do cmp -s "$a/$f" "$b/$f" && line="$line $f=same" || line="$line $f=DIFFERENT"; done
  echo "$line"
}
mkdir -p worker && cp packages/runtime/worker/*.mjs worker/
cp .bundle/features-worker.mjs .bundle/features-worker.js && echo '{"type":"module"}' > .bundle/package.json
run off --quiet
run fp32 --save-embeddings --quiet
run fp16 --save-embeddings --embeddings-dtype fp16 --quiet
all="prediction_results.txt prediction_results_highestscore.csv sequence_summary.tsv chunk_scores.tsv viral_regions.tsv viral_regions.bed"
say "with --save-embeddings vs without:$(same /tmp/out-off /tmp/out-fp32 $all)"
say "with fp16 --save-embeddings vs without:$(same /tmp/out-off /tmp/out-fp16 $all)"
say "sizes: $(du -sh /tmp/out-fp32/embeddings | cut -f1) fp32, $(du -sh /tmp/out-fp16/embeddings | cut -f1) fp16, $(ls /tmp/out-fp32/embeddings | wc -l) files"
t0=$(date +%s%N)
node .bundle/virnucpro-entry.mjs classify --mlp "$mlp" --features /tmp/out-fp32/embeddings -o /tmp/classified-fp32 > /dev/null 2> "$work/classify-fp32.err"; rc=$?
say "classify on the fp32 features: rc=$rc $(( ($(date +%s%N) - t0) / 1000000 )) ms, vs predict:$(same /tmp/out-off /tmp/classified-fp32 prediction_results.txt prediction_results_highestscore.csv sequence_summary.tsv)"
node .bundle/virnucpro-entry.mjs classify --mlp "$mlp" --features /tmp/out-fp16/embeddings -o /tmp/classified-fp16 > /dev/null 2> "$work/classify-fp16.err"
say "classify on the fp16 features vs predict: $(node tools/device/compare-predictions.mjs /tmp/classified-fp16 /tmp/out-off --tol 0.01 2>&1 | tr -d '\n' | head -c 600)"
