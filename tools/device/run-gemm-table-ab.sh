#!/usr/bin/env bash
# The A/B of the measured cuBLASLt configurations (packages/tfjs-backend-cuda/src/gemm-algo-table.ts; the default,
# VIRNUCPRO_GEMM_ALGO=tuned) against the heuristic's first choice (VIRNUCPRO_GEMM_ALGO=pinned, the default before),
# in one device call:
#   1. the kernel suites in fp32, fp16, bf16 and fp8 (they include each measured GEMM at its real widths against the
#      cpu, and fail if cuBLASLt refused to pin it), and batch invariance in bf16 and fp8 (models, full widths);
#   2. ESM-2 3B in bf16 and fp8, both settings alternated over two rounds in one process, 52/101/167 tokens, 32K budget;
#   3. DNABERT-S in bf16 and fp8 on 150/300/500-bp windows of phage lambda, 64K budget, the two settings alternated
#      over two rounds (one process each).
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh packages/tfjs-backend-cuda/gpu-test/kernels.gpu.ts tools/bench/invariance/invariance-gpu.ts tools/bench/esm2/bench-esm2.ts tools/bench/dnabert/bench-dnabert.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-gemm-table-ab.sh
# Knobs: PARTS (default "checks esm2 dnabert"), PRECISIONS of the benchmarks (default "bf16 fp8"), SEQUENCES (ESM-2,
# default 2000), DNABERT_SEQUENCES (default 32000).
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
status=0
parts=${PARTS:-checks esm2 dnabert}
if [[ " $parts " == *" checks "* ]]; then
  for p in fp32 fp16 bf16 fp8; do timeout -k 5 240 node .bundle/kernels.gpu.mjs --precision "$p" > "$out/kernels-$p.txt" 2>&1 & done
  for p in bf16 fp8; do timeout -k 5 240 node .bundle/invariance-gpu.mjs --precision "$p" --parts models,full > "$out/invariance-$p.txt" 2>&1 & done
  for job in $(jobs -p); do wait "$job" || status=1; done
  for f in kernels-fp32 kernels-fp16 kernels-bf16 kernels-fp8 invariance-bf16 invariance-fp8; do
    echo "== $f"; grep -h 'passed\|^FAIL\|measured\|measured cuBLASLt' "$out/$f.txt" | cut -c1-300 | tail -16
  done
fi
if [[ " $parts " == *" esm2 "* ]]; then
  for p in ${PRECISIONS:-bf16 fp8}; do
    echo "== ESM-2 3B $p, tuned vs pinned (alternated, $(date -u +%T))"
    timeout -k 5 240 node .bundle/bench-esm2.mjs --backend cuda --precision "$p" --size 3B --length-sets 50:99:165 --budgets 32768 \
      --sequences "${SEQUENCES:-2000}" --variants tuned+epilogue,pinned+epilogue --rounds 2 > "$out/esm2-$p.json" 2> "$out/esm2-$p.err" || status=1
    grep -h tokensPerSecond "$out/esm2-$p.err" | grep -o '"variant":"[^"]*"\|"round":[0-9]\|"residues":\[[0-9]*\]\|"tokensPerSecond":[0-9]*' | paste -sd' ' | sed 's/ "variant"/\n"variant"/g'
    echo
  done
fi
if [[ " $parts " == *" dnabert "* ]]; then
  common=(--tokenizer test-data/dnabert/tokenizer.json --fasta test-data/lambda_virus.fa --tokenizer-sequences 0 --budgets 65536 --length-sets 150:300:500 --sequences "${DNABERT_SEQUENCES:-32000}")
  for p in ${PRECISIONS:-bf16 fp8}; do
    echo "== DNABERT-S $p, tuned vs pinned (alternated, $(date -u +%T))"
    for round in 1 2; do
      for algo in tuned pinned; do
        VIRNUCPRO_GEMM_ALGO=$algo timeout -k 5 120 node .bundle/bench-dnabert.mjs --backend cuda --precision "$p" "${common[@]}" 2>&1 >/dev/null \
          | grep -o '"basePairs":\[[0-9]*\]\|"tokensPerSecond":[0-9]*' | paste -sd' ' | sed "s/^/$algo round $round: /"
      done
    done
  done
fi
echo "done $(date -u +%T)"
exit $status
