#!/usr/bin/env bash
# Killed runs on the GPU give the bytes of an undisturbed one: `predict --backend cuda` on FRAMES frames of 150-bp
# reads with two workers on GPU 0 — undisturbed; one worker SIGKILLed after KILL_S seconds (the pool restarts it);
# the whole run SIGKILLed after KILL_S seconds, then --resume. Each result file compared byte for byte.
# Here/there: as run-scaling.sh (bundle, .device); There: bash tools/device/run-kill-resume.sh FRAMES PRECISION KILL_S
set -uo pipefail
frames=$1; precision=$2; kill_s=$3
export frames precision
work=/tmp/kill-resume; rm -rf "$work"; mkdir -p "$work"
trap 'tar czf "${OUT:-/tmp}/kill-resume-$frames-$precision.tgz" -C "$work" . 2>/dev/null' EXIT
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache}
READS_ONLY=1 OUT=/tmp bash tools/device/run-predict-bench.sh "$frames" "$precision" > "$work/setup.log" 2>&1; tail -n 1 "$work/setup.log"
v() { node .bundle/virnucpro-entry.mjs predict "/tmp/reads-$frames.fa" --models-dir /tmp/models --model-type 300 --backend cuda --precision "$precision" --devices 0 --workers 2 --checkpoint-every 5000 --quiet "$@"; }
same() {
  local ok=yes
  for f in prediction_results.txt prediction_results_highestscore.csv sequence_summary.tsv chunk_scores.tsv viral_regions.tsv viral_regions.bed; do cmp -s "/tmp/kr-ref/$f" "$1/$f" || ok="NO ($f differs)"; done
  echo "$ok"
}
rm -rf /tmp/kr-*
t0=$(date +%s); v --out-dir /tmp/kr-ref 2> "$work/ref.err"; echo "undisturbed: rc=$? $(( $(date +%s) - t0 )) s" | tee -a "$work/summary.txt"
# The CLI started directly in the background ($! is its pid, not a subshell's), so that its children are the workers.
node .bundle/virnucpro-entry.mjs predict "/tmp/reads-$frames.fa" --models-dir /tmp/models --model-type 300 --backend cuda --precision "$precision" --devices 0 --workers 2 \
  --checkpoint-every 5000 --out-dir /tmp/kr-worker 2> "$work/worker.err" & main=$!
sleep "$kill_s"; victim=$(pgrep -P "$main" | head -1); kill -9 "$victim"; wait "$main"; rc=$?
echo "a worker (pid $victim) SIGKILLed at ${kill_s} s: rc=$rc, identical: $(same /tmp/kr-worker); $(grep -c 'warning' "$work/worker.err") warning line(s)" | tee -a "$work/summary.txt"
setsid bash -c "$(declare -f v); v --out-dir /tmp/kr-killed" 2> "$work/killed.err" & group=$!
sleep "$kill_s"; kill -9 -- "-$group"; sleep 1
kept=$(node -e 'const m=require("/tmp/kr-killed/.checkpoints/manifest.json"); console.log(m.shards.reduce((n,s)=>n+s.count,0), "frames in", m.shards.length, "shards,", m.shards.reduce((n,s)=>n+s.bytes,0), "bytes")' 2>&1)
v --out-dir /tmp/kr-killed --resume 2> "$work/resumed.err"; rc=$?
echo "the whole run SIGKILLed at ${kill_s} s (kept $kept), then --resume: rc=$rc, identical: $(same /tmp/kr-killed); $(grep -o 'resuming: [^$]*' "$work/resumed.err" | head -1)" | tee -a "$work/summary.txt"
