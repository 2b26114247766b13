#!/usr/bin/env bash
# After a kernel change, in ONE device call: the GPU checks (run-gpu-checks.sh: kernel suites in every precision,
# batch invariance) on the new build, then — only if they pass — ESM-2 3B `bench-esm2` of the baseline and the new
# build alternated (fp8 and bf16, 52 / 101 / 167-token proteins in one process each), whether the two builds' means
# of 32 fixed proteins are the same bytes, and Nsight Compute on one 101-token fp8 launch of the kernels in
# NCU_KERNELS (default attention_mma; empty to skip). Everything under $OUT/r, tarred to $OUT/r.tgz (more files than
# come back one by one).
# Here:  NO_DAWN=1 bash tools/device/bundle-base.sh COMMIT tools/bench/esm2/bench-esm2.ts
#        NO_DAWN=1 bash tools/device/bundle.sh packages/tfjs-backend-cuda/gpu-test/kernels.gpu.ts tools/bench/invariance/invariance-gpu.ts tools/bench/esm2/bench-esm2.ts
#        bash ../shared/device/pack.sh; tar cJf .bundle.tar.xz -C .bundle .
# There: timeout -k 5 590 bash tools/device/run-kernel-ab.sh   (carry .device, .bundle.tar.xz, .bundle-base.tar.xz)
# Knobs: ROUNDS (default 2), SEQUENCES (proteins a length, default 4000), CHECKS_S (the checks' limit, default 280:
# the fp8 kernel suite alone takes ~190 s on an H200, and 175–200 s limits stopped it twice on 2026-11-29).
# The same steps took 485 s on an H200 (the 2026-11-29 03:30 call of docs/benchmarks/cuda.md, NVRTC's cache cold).
set -uo pipefail
source .device/on-device.sh
for b in .bundle .bundle-base; do rm -rf $b; mkdir $b; tar xJf $b.tar.xz -C $b; done
source tools/device/unpack-bundle.sh
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache}
r=${OUT:-/tmp/out}/r; mkdir -p "$r"
finish() { (cd "$r/.." && tar czf r.tgz r); }
date -u +%T > "$r/times.txt"
OUT=$r/checks LIMIT_S=${CHECKS_S:-280} bash tools/device/run-gpu-checks.sh > "$r/checks.txt" 2>&1
rc=$?; echo "checks rc=$rc $(date -u +%T)" >> "$r/times.txt"
if [ $rc != 0 ]; then finish; exit 1; fi
for k in $(seq "${ROUNDS:-2}"); do for p in fp8 bf16; do for side in base:.bundle-base new:.bundle; do n=${side%%:*}; b=${side#*:}
  timeout -k 5 100 node "$b/bench-esm2.mjs" --backend cuda --precision $p --size 3B --length-sets 50:99:165 --budgets 32768 \
    --sequences "${SEQUENCES:-4000}" --means-out "$r/means-$n-$p.bin" > "$r/$n-$p-$k.json" 2> "$r/$n-$p-$k.err"
  echo "$n $p $k rc=$? $(date -u +%T) $(grep -o '"tokensPerSecond": [0-9]*' "$r/$n-$p-$k.json" | head -3 | grep -o '[0-9]*' | paste -sd' ')" >> "$r/times.txt"
done; done; done
for p in fp8 bf16; do cmp -s "$r/means-base-$p.bin" "$r/means-new-$p.bin" && echo "means $p: the same bytes" || echo "means $p: DIFFER"; done >> "$r/times.txt"
kernels=${NCU_KERNELS-attention_mma}
if [ -n "$kernels" ]; then
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  timeout -k 5 100 "$ncu" --target-processes all --kernel-name "regex:$kernels" --launch-skip 100 --launch-count 1 --section SpeedOfLight \
    --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats \
    --section MemoryWorkloadAnalysis node .bundle/bench-esm2.mjs --backend cuda --size 3B --length-sets 99 --budgets 32768 --sequences 1500 \
    --precision fp8 > "$r/ncu-fp8.txt" 2>&1
fi
date -u +%T >> "$r/times.txt"
finish
cat "$r/times.txt"
