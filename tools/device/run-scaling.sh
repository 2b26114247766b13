#!/usr/bin/env bash
# `virnucpro predict` on 1..N GPUs of one host, back to back in one call: wall time (model loading included), the
# run summary, every GPU's utilisation (nvidia-smi each second) and the host's CPU per thread of the main process
# and per worker process (top -H every 5 s), and whether every run's result files are byte-identical to the first's.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh tools/device/virnucpro-entry.ts packages/predict/src/features-worker.ts
#        (a baseline build the same way, moved to .bundle-base; .bench-data/NC_008253.fna.gz as for run-predict-bench.sh)
# There: source .device/on-device.sh && bash tools/device/run-scaling.sh FRAMES PRECISION RUN...
#        RUN is NAME=BUNDLE:DEVICES[:KILL_AFTER_S], e.g. two=.bundle:0,1 one=.bundle:0 base=.bundle-base:0 killed=.bundle:0,1:45
#        (KILL_AFTER_S: one worker process is SIGKILLed that many seconds into the run; the pool restarts it).
#        RUN_LIMIT_S stops a run after that many seconds (a build that collapses need not finish to show why).
#        A bundle given as DIR.tar.xz is unpacked to DIR first (what travels is limited to 64 MiB).
#        WARMUP=BUNDLE:DEVICES first runs that build on the first 20,000 reads, untimed, so that every timed run finds
#        the compiled-kernel cache and the models in the page cache, as a user's second run does (PROFILE_WARMUP=1:
#        with --cpu-prof in every process, the profiles in the tarball's prof/).
#        Each run's stderr lines are stamped with the time since its start (ms): where the fixed costs go.
#        PROFILE=1: a CPU profile of every process of each timed run (PID.cpuprofile in its folder).
#        PROGRESS_INTERVAL=S: a progress line every S seconds (default 10); PIPELINE_TRACE=1: each run's main-thread
#        counters every 200 ms in its folder's pipeline.tsv (VIRNUCPRO_PIPELINE_TRACE); VIRNUCPRO_CUDA_TRACE=MS from
#        the caller reaches every worker (the model thread's calls and stream gaps every MS ms, in stderr).
# Everything goes to $OUT/scaling-FRAMES-PRECISION.tgz; the summary lines to stdout.
set -uo pipefail
frames=$1; precision=$2; shift 2
work=/tmp/scaling; rm -rf "$work"; mkdir -p "$work"
trap 'tar czf "${OUT:-/tmp}/scaling-$frames-$precision.tgz" -C "$work" . 2>/dev/null' EXIT
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache}
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee "$work/gpu.txt"; nproc | tee "$work/cores.txt"
# Models and reads as the predict benchmark makes them (kept in /tmp for later calls on the same machine).
READS_ONLY=1 OUT=/tmp bash tools/device/run-predict-bench.sh "$frames" "$precision" > "$work/setup.log" 2>&1; tail -n 2 "$work/setup.log"
reads=/tmp/reads-$frames.fa
stamp() { python3 -u -c 'import sys, time
t0 = float(sys.argv[1])
for line in sys.stdin: sys.stdout.write("%8.0f %s" % ((time.time() - t0) * 1000, line))' "$1"; }
if [ -n "${WARMUP:-}" ]; then
  wb=${WARMUP%%:*}; wd=${WARMUP#*:}
  case $wb in *.tar.xz) d=${wb%.tar.xz}; [ -d "$d" ] || { mkdir -p "$d" && tar xJf "$wb" -C "$d"; }; wb=$d ;; esac
  mkdir -p worker && cp packages/runtime/worker/*.mjs worker/
  cp "$wb/features-worker.mjs" "$wb/features-worker.js" && echo '{"type":"module"}' > "$wb/package.json"
  head -n 40000 "$reads" > /tmp/warmup.fa; rm -rf /tmp/out-warmup; mkdir -p "$work/prof"
  w0=$(date +%s.%N)
  # --cpu-prof is refused in NODE_OPTIONS: the profiler is started by an --import in every process instead.
  PROF_DIR=$work/prof NODE_OPTIONS=$([ -n "${PROFILE_WARMUP:-}" ] && echo "--import $PWD/tools/device/cpu-profile.mjs") VIRNUCPRO_PROGRESS_INTERVAL=2 \
    node "$wb/virnucpro-entry.mjs" predict /tmp/warmup.fa --models-dir /tmp/models --model-type 300 --backend cuda --precision "$precision" \
    --token-budget 32768 --devices "$wd" --out-dir /tmp/out-warmup 2>&1 | stamp "$w0" > "$work/warmup.txt"
  echo "warm-up ($wb --devices $wd, 20,000 reads): $(tail -n 1 "$work/warmup.txt")"
fi
first=""
for run in "$@"; do
  name=${run%%=*}; spec=${run#*=}; bundle=${spec%%:*}; rest=${spec#*:}; devices=${rest%%:*}; kill_after=""; [ "$rest" != "$devices" ] && kill_after=${rest#*:}
  case $bundle in *.tar.xz) dir=${bundle%.tar.xz}; [ -d "$dir" ] || { mkdir -p "$dir" && tar xJf "$bundle" -C "$dir"; }; bundle=$dir ;; esac
  mkdir -p worker && cp packages/runtime/worker/*.mjs worker/
  cp "$bundle/features-worker.mjs" "$bundle/features-worker.js" && echo '{"type":"module"}' > "$bundle/package.json"
  dir=$work/$name; mkdir -p "$dir"; rm -rf "/tmp/out-$name"
  nvidia-smi --query-gpu=index,utilization.gpu,memory.used,clocks.sm,power.draw,temperature.gpu --format=csv,noheader,nounits -l 1 > "$dir/gpu.csv" &
  smi=$!
  t0=$(date +%s%N)
  trace=""; [ -n "${PIPELINE_TRACE:-}" ] && trace=$dir/pipeline.tsv
  # PROFILE=1: every process of the run (main, workers) writes a CPU profile into the run's folder (PID.cpuprofile).
  [ -n "${PROFILE:-}" ] && export PROF_DIR=$dir NODE_OPTIONS="--import $PWD/tools/device/cpu-profile.mjs"
  VIRNUCPRO_PIPELINE_TRACE=$trace VIRNUCPRO_PROGRESS_INTERVAL=${PROGRESS_INTERVAL:-10} timeout "${RUN_LIMIT_S:-0}" node "$bundle/virnucpro-entry.mjs" predict "$reads" --models-dir /tmp/models --model-type 300 --backend cuda --precision "$precision" \
    --token-budget 32768 --devices "$devices" --out-dir "/tmp/out-$name" > "$dir/stdout.txt" 2> >(stamp "$(echo "$t0" | sed 's/.........$/.&/')" > "$dir/stderr.txt") &
  main=$!
  # The CLI's pid: $main is the background job (a subshell around timeout when stderr goes through stamp).
  cli_pid() { pgrep -n -f "virnucpro-entry.mjs predict $reads"; }
  # exec: each sampler's pid is top's own once it runs, so the kill below stops it (a `top` left running after a run
  # shorter than its delay kept the call's output open until the device's limit).
  ( sleep 3; pid=$(cli_pid) && exec top -b -H -d 5 -w 180 -p "$pid" > "$dir/top-main.txt" ) &
  toppid=$!
  ( sleep 20; kill -0 "$main" 2>/dev/null && exec top -b -d 5 -w 180 > "$dir/top-all.txt" ) &
  topall=$!
  if [ -n "$kill_after" ]; then
    # The workers are the CLI's children.
    ( sleep "$kill_after"; victim=$(pgrep -o -P "$(cli_pid)"); echo "killed worker pid $victim at ${kill_after}s" > "$dir/killed.txt"; kill -9 "$victim" ) &
  fi
  wait "$main"; rc=$?
  t1=$(date +%s%N)
  kill "$smi" "$toppid" "$topall" 2>/dev/null; pkill -P "$toppid" 2>/dev/null; pkill -P "$topall" 2>/dev/null
  cp "/tmp/out-$name/run_summary.json" "$dir/" 2>/dev/null
  busy=$(awk -F', ' '{u[$1]+=$2; n[$1]++} END {for (g in u) printf "gpu%s %.1f%% ", g, u[g]/n[g]}' "$dir/gpu.csv")
  same=""
  if [ -z "$first" ]; then first=$name; else
    same="identical to $first:"
    for f in prediction_results.txt prediction_results_highestscore.csv sequence_summary.tsv chunk_scores.tsv viral_regions.tsv viral_regions.bed; do
      cmp -s "/tmp/out-$first/$f" "/tmp/out-$name/$f" && same="$same $f=yes" || same="$same $f=NO"
    done
  fi
  stages=$(node -e 'const s=require(process.argv[1]); console.log(JSON.stringify(s.stageSeconds), "frames", s.frames, "refined", JSON.stringify(s.refinement), "batches", s.batches)' "$dir/run_summary.json" 2>&1 | head -c 400)
  echo "$name ($bundle --devices $devices${kill_after:+, a worker killed at ${kill_after}s}): rc=$rc wall $(( (t1 - t0) / 1000000 )) ms | $busy| $stages | $same" | tee -a "$work/summary.txt"
  tail -n 2 "$dir/stderr.txt"
done
