#!/usr/bin/env bash
# What batch invariance and the GELU epilogue cost or gain on ESM-2 3B (random weights), in one process per
# model: the GEMM algorithm pinned per weight shape vs cuBLASLt's choice per row count, fc1's GELU in cuBLASLt's
# epilogue vs our erf pass (bench-esm2 --variants, alternated rounds), with each variant's mean embeddings against
# an fp32 run of the same weights.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh tools/bench/esm2/bench-esm2.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-gemm-ab.sh [SEQUENCES]
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
n=${1:-8000}
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache}
size=${SIZE:-3B}
echo "== fp32 means ($size)"
timeout -k 5 150 node .bundle/bench-esm2.mjs --backend cuda --precision fp32 --size "$size" --sequences 16 --budgets 4096 --means-out /tmp/esm2-means-fp32.bin > "$out/ab-fp32.json" 2> "$out/ab-fp32.err"
echo "rc=$?"; tail -n 3 "$out/ab-fp32.err" | cut -c1-300
for p in ${PRECISIONS:-bf16}; do
  echo "== variants $p"
  timeout -k 5 "${LIMIT_S:-240}" node .bundle/bench-esm2.mjs --backend cuda --precision "$p" --size "$size" --length-sets "${LENGTHS:-50}" --budgets "${BUDGETS:-32768}" --sequences "$n" \
    --variants pinned+epilogue,per-rows+erf,pinned+erf,per-rows+epilogue --rounds "${ROUNDS:-2}" --means-ref /tmp/esm2-means-fp32.bin > "$out/ab-$p.json" 2> "$out/ab-$p.err"
  echo "rc=$?"
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const by = {};
    for (const run of r.runs) (by[run.variant + " " + run.residues + " @" + run.tokenBudget] ??= []).push(run.tokensPerSecond);
    for (const [k, v] of Object.entries(by)) console.log(k, v.join(" "));
    console.log(JSON.stringify(r.variantMeans));' "$out/ab-$p.json" || tail -n 5 "$out/ab-$p.err"
done
