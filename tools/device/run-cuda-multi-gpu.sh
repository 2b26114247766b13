#!/usr/bin/env bash
# `virnucpro predict --backend cuda` on one and on two GPUs of one host, in ONE device call (issue #16): the same
# reads (tools/bench/predict's full-size random models and 150-bp reads, made there), `--devices 0,1`, then
# `--devices 0`, then `--devices 0,1` with one worker process killed (SIGKILL) mid-run. The outputs of all three must
# be byte-identical; GPU utilisation per GPU sampled by nvidia-smi every 500 ms.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh tools/device/virnucpro-entry.ts packages/predict/src/features-worker.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-cuda-multi-gpu.sh FRAMES [PRECISION] [KILL_AFTER_S]
set -uo pipefail
frames=${1:-300000}; precision=${2:-fp16}; kill_after=${3:-40}
out=${OUT:-/tmp/out}/multi-gpu; mkdir -p "$out"
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache}
nvidia-smi -L | tee "$out/gpus.txt"
READS_ONLY=1 bash tools/device/run-predict-bench.sh "$frames" "$precision" > "$out/make.log" 2>&1; tail -2 "$out/make.log"
reads=/tmp/reads-$frames.fa

run() { # NAME DEVICES [KILL]: one predict run, GPUs sampled; prints a line of figures
  local name=$1 devices=$2 kill=${3:-}
  rm -rf "/tmp/mg-$name"
  nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv,noheader,nounits -lms 500 > "$out/$name-gpu.csv" &
  local sampler=$! t0=$(date +%s%N)
  node .bundle/virnucpro-entry.mjs predict "$reads" --models-dir /tmp/models --model-type 300 --backend cuda --precision "$precision" \
    --devices "$devices" --out-dir "/tmp/mg-$name" --quiet > "$out/$name.out" 2> "$out/$name.err" &
  local main=$!
  if [ -n "$kill" ]; then
    sleep "$kill_after"
    # the worker processes are the CLI's children; kill the one on the last GPU
    local victim; victim=$(pgrep -P "$main" | tail -1)
    echo "$name: killing worker pid $victim after ${kill_after} s ($(tr '\0' ' ' < /proc/$victim/environ | grep -o 'CUDA_VISIBLE_DEVICES=[^ ]*'))" | tee -a "$out/summary.txt"
    kill -9 "$victim"
  fi
  wait "$main"; local rc=$? t1=$(date +%s%N)
  kill "$sampler" 2>/dev/null
  cp "/tmp/mg-$name/run_summary.json" "$out/$name-run_summary.json" 2>/dev/null
  echo "$name (--devices $devices): rc=$rc wall $(( (t1 - t0) / 1000000 )) ms" | tee -a "$out/summary.txt"
  awk -F', ' '{u[$1]+=$2; n[$1]++; if ($3>m[$1]) m[$1]=$3} END {for (g in u) printf "  GPU %s: busy %.1f %% (%d samples), peak memory %d MiB\n", g, u[g]/n[g], n[g], m[g]}' "$out/$name-gpu.csv" | tee -a "$out/summary.txt"
  node -e 'const s=require(process.argv[1]); console.log("  " + JSON.stringify({frames:s.frames, stageSeconds:s.stageSeconds, totalSeconds:s.totalSeconds, framesPerSecond:+s.framesPerSecond.toFixed(1), tokensPerSecond:s.tokensPerSecond, batches:s.batches, workers:(s.workerStats??[]).map((w)=>({device:w.device, batches:w.batches, restarts:w.restarts}))}))' "$out/$name-run_summary.json" 2>&1 | tee -a "$out/summary.txt"
  tail -n 3 "$out/$name.err"
}
run two 0,1
run one 0
run killed 0,1 kill
for name in two killed; do
  for f in prediction_results.txt prediction_results_highestscore.csv sequence_summary.tsv; do
    if cmp -s "/tmp/mg-one/$f" "/tmp/mg-$name/$f"; then echo "$name vs one: $f byte-identical"; else echo "$name vs one: $f DIFFERS"; fi
  done | tee -a "$out/summary.txt"
done
