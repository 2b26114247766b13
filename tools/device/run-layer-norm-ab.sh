#!/usr/bin/env bash
# The A/B of layer norm with one warp per row (the default; VIRNUCPRO_LN_PER_WARP=0: one block per row, the kernel
# before), in one device call:
#   1. the kernel suites in fp32, fp16, bf16 and fp8 (layer norm with each kernel against the cpu), and batch
#      invariance in bf16 (kernels, models, full widths) and fp8 (models, full widths);
#   2. ESM-2 3B bf16, 52/101/167 tokens at a 32K budget, and DNABERT-S bf16 on 150/300/500-bp windows of phage lambda
#      at a 64K budget: one process per setting, the two alternated over two rounds.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh packages/tfjs-backend-cuda/gpu-test/kernels.gpu.ts tools/bench/invariance/invariance-gpu.ts tools/bench/esm2/bench-esm2.ts tools/bench/dnabert/bench-dnabert.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-layer-norm-ab.sh
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
status=0
for p in fp32 fp16 bf16 fp8; do timeout -k 5 240 node .bundle/kernels.gpu.mjs --precision "$p" > "$out/kernels-$p.txt" 2>&1 & done
timeout -k 5 240 node .bundle/invariance-gpu.mjs --precision bf16 --parts kernels,models,full > "$out/invariance-bf16.txt" 2>&1 &
timeout -k 5 240 node .bundle/invariance-gpu.mjs --precision fp8 --parts models,full > "$out/invariance-fp8.txt" 2>&1 &
for job in $(jobs -p); do wait "$job" || status=1; done
for f in kernels-fp32 kernels-fp16 kernels-bf16 kernels-fp8 invariance-bf16 invariance-fp8; do
  echo "== $f"; grep -h 'passed\|^FAIL\|layerNorm' "$out/$f.txt" | cut -c1-200 | tail -12
done
dnabert=(--tokenizer test-data/dnabert/tokenizer.json --fasta test-data/lambda_virus.fa --tokenizer-sequences 0 --budgets 65536 --length-sets 150:300:500 --sequences "${DNABERT_SEQUENCES:-32000}")
for round in 1 2; do
  for warp in 1 0; do
    echo "== round $round, VIRNUCPRO_LN_PER_WARP=$warp ($(date -u +%T))"
    VIRNUCPRO_LN_PER_WARP=$warp timeout -k 5 150 node .bundle/bench-esm2.mjs --backend cuda --precision bf16 --size 3B --length-sets 50:99:165 --budgets 32768 \
      --sequences "${SEQUENCES:-2000}" 2>&1 >/dev/null | grep -o '"residues":\[[0-9]*\]\|"tokensPerSecond":[0-9]*' | paste -sd' ' | sed 's/^/ESM-2 3B: /'
    VIRNUCPRO_LN_PER_WARP=$warp timeout -k 5 120 node .bundle/bench-dnabert.mjs --backend cuda --precision bf16 "${dnabert[@]}" 2>&1 >/dev/null \
      | grep -o '"basePairs":\[[0-9]*\]\|"tokensPerSecond":[0-9]*' | paste -sd' ' | sed 's/^/DNABERT-S: /'
  done
done
echo "done $(date -u +%T)"
exit $status
