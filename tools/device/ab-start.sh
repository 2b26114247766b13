#!/usr/bin/env bash
# A/B of a run's start in one device call: `virnucpro predict` on a small input (the benchmark's models and 150-bp
# reads, made there), each arm an environment setting, alternated over ROUNDS, caches warm (one untimed run first).
# Per run: wall, the load-models stage and the compute phase from run_summary.json, and the first progress line's
# time; every arm's result files compared with the first run's.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh tools/device/virnucpro-entry.ts packages/predict/src/features-worker.ts
#        && tar cJf .bundle.tar.xz -C .bundle .
# There: source .device/on-device.sh && bash tools/device/ab-start.sh FRAMES PRECISION DEVICES ARM...
#        ARM is NAME=VAR=VALUE[,VAR=VALUE] (NAME= alone: the defaults), e.g. base= noepi=VIRNUCPRO_GELU_EPILOGUE=0
#        ROUNDS (default 2); GENOMES as for run-predict-bench.sh.
# Everything goes to $OUT/ab-start-FRAMES-PRECISION.tgz; one line per run to stdout.
set -uo pipefail
frames=$1; precision=$2; devices=$3; shift 3
work=/tmp/ab-start; rm -rf "$work"; mkdir -p "$work"
trap 'tar czf "${OUT:-/tmp}/ab-start-$frames-$precision.tgz" -C "$work" . 2>/dev/null' EXIT
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache}
[ -d .bundle ] || { mkdir -p .bundle && tar xJf .bundle.tar.xz -C .bundle; }
READS_ONLY=1 OUT=/tmp bash tools/device/run-predict-bench.sh "$frames" "$precision" > "$work/setup.log" 2>&1; tail -n 1 "$work/setup.log"
reads=/tmp/reads-$frames.fa
run() { # NAME ENV: one predict run, its stderr stamped with ms since the start
  local name=$1 settings=$2 dir=$work/$1; mkdir -p "$dir"; rm -rf "/tmp/out-$name"
  local t0; t0=$(date +%s.%N)
  env VIRNUCPRO_PROGRESS_INTERVAL=1 ${settings//,/ } node .bundle/virnucpro-entry.mjs predict "$reads" --models-dir /tmp/models --model-type 300 --backend cuda \
    --precision "$precision" --token-budget 32768 --devices "$devices" --out-dir "/tmp/out-$name" 2>&1 \
    | python3 -u -c 'import sys, time
t0 = float(sys.argv[1])
for line in sys.stdin: sys.stdout.write("%8.0f %s" % ((time.time() - t0) * 1000, line))' "$t0" > "$dir/stderr.txt"
  local t1; t1=$(date +%s.%N)
  cp "/tmp/out-$name/run_summary.json" "$dir/" 2>/dev/null
  local first; first=$(grep -m1 -E 'predict: [0-9]' "$dir/stderr.txt" | awk '{print $1}')
  local stages; stages=$(node -e 'const s=require(process.argv[1]); console.log(JSON.stringify(s.stageSeconds))' "$dir/run_summary.json" 2>&1 | head -c 200)
  echo "$name: wall $(python3 -c "print(round($t1 - $t0, 2))") s | first progress line ${first:-?} ms | $stages" | tee -a "$work/summary.txt"
}
# Untimed: the kernel cache and the models' pages warm for every arm.
run warmup "${1#*=}" > /dev/null
first=""
for round in $(seq 1 "${ROUNDS:-2}"); do
  for arm in "$@"; do
    name=${arm%%=*}; settings=${arm#*=}
    run "$name-r$round" "$settings"
    if [ -z "$first" ]; then first=$name-r$round; else
      for f in prediction_results.txt prediction_results_highestscore.csv sequence_summary.tsv; do
        cmp -s "/tmp/out-$first/$f" "/tmp/out-$name-r$round/$f" || echo "  $f differs from $first's" | tee -a "$work/summary.txt"
      done
    fi
  done
done
