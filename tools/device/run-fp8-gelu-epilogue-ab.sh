#!/usr/bin/env bash
# fp8: fc1's GELU in the FP8 GEMM's epilogue (cuBLASLt's tanh form after the scales and the bias; fc2's fp8 rows then
# quantised without an erf per value) against the erf GELU in the row-quantisation kernel (VIRNUCPRO_GELU_EPILOGUE=0),
# in one device call:
#   1. the fp8 kernel suite and fp8 batch invariance (models, full widths) with the epilogue;
#   2. ESM-2 3B fp8 on 52/101/167 tokens at a 32K budget (2 batches in flight), one process per setting, alternated
#      over two rounds, with a kernel profile of one 16K-token batch in round 1;
#   3. the whole fp8 model's mean-embedding cosine to fp32 (fp8-accuracy-esm2 --variants 1) with and without.
# Here:  NO_DAWN=1 bash tools/device/bundle.sh packages/tfjs-backend-cuda/gpu-test/kernels.gpu.ts tools/bench/invariance/invariance-gpu.ts tools/bench/esm2/bench-esm2.ts tools/bench/esm2/fp8-accuracy-esm2.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-fp8-gelu-epilogue-ab.sh
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
status=0
timeout -k 5 240 node .bundle/kernels.gpu.mjs --precision fp8 > "$out/kernels-fp8.txt" 2>&1 || status=1 &
timeout -k 5 240 node .bundle/invariance-gpu.mjs --precision fp8 --parts models,full > "$out/invariance-fp8.txt" 2>&1 || status=1 &
wait
for f in kernels-fp8 invariance-fp8; do echo "== $f"; grep -h 'passed\|^FAIL\|linear.*gelu' "$out/$f.txt" | cut -c1-220 | tail -8; done
for round in 1 2; do
  for e in 1 0; do
    profile=(); [ "$round" = 1 ] && profile=(--profile)
    VIRNUCPRO_GELU_EPILOGUE=$e timeout -k 5 150 node .bundle/bench-esm2.mjs --backend cuda --precision fp8 --size 3B --length-sets 50:99:165 --budgets 32768 \
      --sequences "${SEQUENCES:-3000}" "${profile[@]}" > "$out/esm2-fp8-gelu$e-round$round.json" 2> "$out/esm2-fp8-gelu$e-round$round.err"
    grep -o '"residues":\[[0-9]*\]\|"tokensPerSecond":[0-9]*' "$out/esm2-fp8-gelu$e-round$round.err" | paste -sd' ' | sed "s/^/round $round, VIRNUCPRO_GELU_EPILOGUE=$e: /"
  done
done
for e in 1 0; do
  VIRNUCPRO_GELU_EPILOGUE=$e timeout -k 5 200 node .bundle/fp8-accuracy-esm2.mjs --size 3B --sequences 48 --variants 1 > "$out/accuracy-gelu$e.json" 2>/dev/null
  echo "accuracy, VIRNUCPRO_GELU_EPILOGUE=$e: $(grep -o '"byLength":\[[^]]*\]\|"aloneVsBatchMaxAbsDiff":[0-9.e-]*' "$out/accuracy-gelu$e.json" | tr -d '\n' | cut -c1-600)"
done
echo "done $(date -u +%T)"
exit $status
