#!/usr/bin/env bash
# Sourced by the device scripts (tools/device/run-*.sh) after `set -uo pipefail`: their output folder $out ($OUT,
# else /tmp/out), NVRTC's kernel cache kept for the machine's later calls, unbuffered Python, and the GPU named in
# $out/gpu.txt.
out=${OUT:-/tmp/out}
mkdir -p "$out"
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache} PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
