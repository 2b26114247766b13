#!/usr/bin/env bash
# The A/B of fp8's fused GeGLU (the default since 2026-11-26; VIRNUCPRO_FP8_GEGLU_FUSED=0 turns it off: DNABERT-S's
# GeGLU then writes bf16 that a row pass reads again instead of writing fc2's fp8 rows in the same pass,
# geglu_quantize_rows_regs; the same bytes), in one device call:
#   1. the fp8 kernel suite (includes the fused kernel against GeGLU then a row pass, byte for byte);
#   2. DNABERT-S fp8 mean embeddings with it off and on: byte-identical files required;
#   3. DNABERT-S fp8 throughput at a 64K budget on 150/300/500-bp windows, off and on alternated over two rounds.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh packages/tfjs-backend-cuda/gpu-test/kernels.gpu.ts tools/bench/dnabert/bench-dnabert.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-fp8-geglu-ab.sh
# Everything lands in $OUT (kernels-fp8.txt, geglu-ab.txt).
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
status=0
timeout -k 5 120 node .bundle/kernels.gpu.mjs --precision fp8 > "$out/kernels-fp8.txt" 2>&1 || status=1
grep -h 'passed\|geglu rows\|^FAIL' "$out/kernels-fp8.txt" | cut -c1-300
common=(--tokenizer test-data/dnabert/tokenizer.json --fasta test-data/lambda_virus.fa --tokenizer-sequences 0 --budgets 65536)
ab=$out/geglu-ab.txt; : > "$ab"
for fused in 0 1; do
  VIRNUCPRO_FP8_GEGLU_FUSED=$fused timeout -k 5 60 node .bundle/bench-dnabert.mjs --backend cuda --precision fp8 "${common[@]}" \
    --length-sets 150 --sequences 2000 --means-out "/tmp/geglu-means-$fused.bin" > /dev/null 2>&1 || status=1
done
if cmp -s /tmp/geglu-means-0.bin /tmp/geglu-means-1.bin; then echo "means: fused and apart byte-identical" >> "$ab"; else echo "means: DIFFER" >> "$ab"; status=1; fi
for round in 1 2; do
  for fused in 0 1; do
  VIRNUCPRO_FP8_GEGLU_FUSED=$fused timeout -k 5 60 node .bundle/bench-dnabert.mjs --backend cuda --precision fp8 "${common[@]}" \
      --length-sets 150:300:500 --sequences 16000 2>&1 >/dev/null | grep -o '"basePairs":\[[0-9]*\]\|"tokensPerSecond":[0-9]*' | paste -sd' ' | sed "s/^/fused=$fused round $round: /" >> "$ab"
  done
done
cat "$ab"
exit $status
