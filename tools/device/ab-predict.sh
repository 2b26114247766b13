#!/usr/bin/env bash
# Two builds of `virnucpro predict` on the same reads and models, alternating, in ONE device call: the way to tell
# whether a change helps on machines whose speed varies by ~8 % from one to the next (compare ratios, not runs of
# different calls). Each run is tools/device/run-predict-bench.sh with TORCH=0; a run's figures go to summary.txt.
# Here:  build the baseline bundle into .bundle-base (e.g. `git stash -u`, bundle.sh, `mv .bundle .bundle-base`,
#        `git stash pop`), then the new one into .bundle; carry .device .bundle .bundle-base .bench-data
# There: source .device/on-device.sh && bash tools/device/ab-predict.sh FRAMES PRECISION RUN...
#        RUN is NAME=BUNDLE_DIR[:ENV=VALUE,...], e.g. new=.bundle:VIRNUCPRO_CUDA_TRACE=1 base=.bundle-base new=.bundle
# Everything ends up in $OUT/ab-predict.tgz (per run: the bench's own tarball contents under NAME-K/).
set -uo pipefail
frames=$1; precision=$2; shift 2
ab=/tmp/ab-predict; rm -rf "$ab"; mkdir -p "$ab"
trap 'tar czf "${OUT:-/tmp}/ab-predict.tgz" -C "$ab" . 2>/dev/null' EXIT
READS_ONLY=1 OUT=/tmp bash tools/device/run-predict-bench.sh "$frames" "$precision" > "$ab/setup.log" 2>&1; tail -n 3 "$ab/setup.log"
k=0
for run in "$@"; do
  k=$((k + 1)); name=${run%%=*}; spec=${run#*=}; bundle=${spec%%:*}; envs=""; [ "$spec" != "$bundle" ] && envs=${spec#*:}
  dir="$ab/$name-$k"; mkdir -p "$dir"
  ( [ -n "$envs" ] && export ${envs//,/ }; TORCH=0 BUNDLE=$bundle OUT="$dir" bash tools/device/run-predict-bench.sh "$frames" "$precision" > "$dir/bench.log" 2>&1 )
  tar xzf "$dir"/predict-bench-*.tgz -C "$dir" && rm "$dir"/predict-bench-*.tgz
  line=$(grep '^ours' "$dir/summary.txt")
  stages=$(node -e 'const s=require(process.argv[1]); console.log(JSON.stringify(s.stageSeconds), "gpuBusy", s.gpuBusyFraction, "tok/s", JSON.stringify(s.tokensPerSecond))' "$dir/run_summary.json" 2>&1)
  echo "$name-$k ($bundle${envs:+ $envs}): $line | $stages" | tee -a "$ab/summary.txt"
  grep -A14 'cuda-trace (end)' "$dir/ours.err" | cut -c1-600
done
