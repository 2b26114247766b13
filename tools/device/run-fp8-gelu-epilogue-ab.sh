#!/usr/bin/env bash
# fp8: fc1's GELU in the FP8 GEMM's epilogue (cuBLASLt's tanh form after the scales and the bias; fc2's fp8 rows then
# quantised without an erf per value) against the erf GELU in the row-quantisation kernel (VIRNUCPRO_GELU_EPILOGUE=0),
# ESM-2 3B, in one device call (run-fp8-env-ab.sh says what it runs).
# Here:  NO_DAWN=1 bash tools/device/bundle.sh packages/tfjs-backend-cuda/gpu-test/kernels.gpu.ts tools/bench/invariance/invariance-gpu.ts tools/bench/esm2/bench-esm2.ts tools/bench/esm2/fp8-accuracy-esm2.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-fp8-gelu-epilogue-ab.sh
exec bash "$(dirname "$0")/run-fp8-env-ab.sh" VIRNUCPRO_GELU_EPILOGUE
