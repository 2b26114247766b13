#!/usr/bin/env bash
# One bundled benchmark entry of two builds, alternating, in ONE device call (the GPU's speed varies from one
# machine to the next: compare the two builds' figures of the same call). Each run's stdout (the bench's JSON)
# goes to $OUT/ab-bench/NAME-K.json, its stderr beside it; summary.txt gets one line per run.
# Here:  the baseline bundle in .bundle-base (built from a clean checkout), the new one in .bundle
# There: source .device/on-device.sh && bash tools/device/ab-bench.sh ENTRY ROUNDS -- BENCH ARGS...
#        e.g. ab-bench.sh bench-esm2 2 -- --backend cuda --precision bf16 --size 3B --length-sets 50 --budgets 32768 --sequences 3000
set -uo pipefail
entry=$1; rounds=$2; shift 3
out=${OUT:-/tmp/out}/ab-bench; mkdir -p "$out"
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache}
for k in $(seq "$rounds"); do
  for side in base:.bundle-base new:.bundle; do
    name=${side%%:*}; bundle=${side#*:}
    timeout 300 node "$bundle/$entry.mjs" "$@" > "$out/$name-$k.json" 2> "$out/$name-$k.err"
    echo "$name-$k rc=$? $(tr -d '\n' < "$out/$name-$k.json" | cut -c1-900)" | tee -a "$out/summary.txt"
  done
done
