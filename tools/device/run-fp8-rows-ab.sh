#!/usr/bin/env bash
# The A/B of fp8's row quantisation in registers (fc1's GELU output and the attention output read and finished once,
# not twice; the same bytes; the default since it measured 1.04–1.06× on 2026-11-25, VIRNUCPRO_FP8_ROWS_IN_REGISTERS=0
# re-reads), in one device call:
#   1. the fp8 kernel suite with it on (includes *_regs against the re-reading kernels, byte for byte);
#   2. batch invariance in fp8 with it on (models and full widths);
#   3. ESM-2 3B fp8 throughput, both settings alternated in one process, 52/101/167 tokens at a 32K budget, and a
#      kernel profile of one 16K batch with it on (the quantising kernels' time against the 2026-11-25 profile).
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh packages/tfjs-backend-cuda/gpu-test/kernels.gpu.ts tools/bench/invariance/invariance-gpu.ts tools/bench/esm2/bench-esm2.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-fp8-rows-ab.sh
# Everything lands in $OUT (kernels-fp8-regs.txt, invariance-fp8-regs.txt, ab.json/.err, profile.json).
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
status=0
# 1 and 2 side by side (small shapes; their time goes to the cpu references and NVRTC).
VIRNUCPRO_FP8_ROWS_IN_REGISTERS=1 timeout -k 5 200 node .bundle/kernels.gpu.mjs --precision fp8 > "$out/kernels-fp8-regs.txt" 2>&1 &
VIRNUCPRO_FP8_ROWS_IN_REGISTERS=1 timeout -k 5 200 node .bundle/invariance-gpu.mjs --precision fp8 --parts models,full > "$out/invariance-fp8-regs.txt" 2>&1 &
for job in $(jobs -p); do wait "$job" || status=1; done
for f in kernels-fp8-regs invariance-fp8-regs; do echo "== $f"; grep -v '^ok' "$out/$f.txt" | cut -c1-400 | tail -12; done
echo "== ESM-2 3B fp8, rows re-read vs in registers (alternated)"
timeout -k 5 "${AB_LIMIT_S:-200}" node .bundle/bench-esm2.mjs --backend cuda --precision fp8 --size 3B --length-sets 50:99:165 --budgets 32768 \
  --sequences "${SEQUENCES:-3000}" --variants pinned+epilogue+reread,pinned+epilogue+regs --rounds 2 > "$out/ab.json" 2> "$out/ab.err" || status=1
grep -h tokensPerSecond "$out/ab.err" | cut -c1-300
echo "== profile, rows in registers"
VIRNUCPRO_FP8_ROWS_IN_REGISTERS=1 timeout -k 5 120 node .bundle/bench-esm2.mjs --backend cuda --precision fp8 --size 3B --length-sets 50 --budgets 16384 \
  --sequences 400 --profile > "$out/profile.json" 2> "$out/profile.err" || status=1
node -e 'const p = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).profile; console.log(JSON.stringify({ gpuMs: p.gpuMs, wallMs: p.wallMs }));
  for (const k of p.kernels.slice(0, 12)) console.log(k.kernel, k.launches, k.ms.toFixed(2));' "$out/profile.json"
exit $status
