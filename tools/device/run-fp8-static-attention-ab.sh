#!/usr/bin/env bash
# fp8 attention writing `out`'s E4M3 input with a static scale from the qkv layer's value columns (out in cuBLASLt's
# per-tensor mode, no quantisation pass over the attention output: src/fp8-static-scales.ts) against the attention
# output in bf16 and a row pass (VIRNUCPRO_FP8_STATIC_ATTENTION=0), ESM-2 3B and DNABERT-S, in one device call
# (run-fp8-env-ab.sh says what it runs).
# Here:  NO_DAWN=1 bash tools/device/bundle.sh packages/tfjs-backend-cuda/gpu-test/kernels.gpu.ts tools/bench/invariance/invariance-gpu.ts tools/bench/esm2/bench-esm2.ts tools/bench/dnabert/bench-dnabert.ts tools/bench/esm2/fp8-accuracy-esm2.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-fp8-static-attention-ab.sh
DNABERT=1 exec bash "$(dirname "$0")/run-fp8-env-ab.sh" VIRNUCPRO_FP8_STATIC_ATTENTION
