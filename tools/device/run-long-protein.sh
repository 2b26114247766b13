#!/usr/bin/env bash
# `embed esm2` of one long random protein on cuda (issue 29: titin is ~35,000 residues): peak RSS (the
# largest child's ru_maxrss) and peak GPU memory from nvidia-smi sampled every 100 ms, at each LENGTHS value, per precision.
# Model: the 2-layer, 64-wide, 4-head ESM-2 of test-data/esm2-transformers5/masked-lm (the "t5" rows of
# docs/usage.md's long-protein table), so the figures sit beside the CPU backends'.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh tools/device/virnucpro-entry.ts packages/predict/src/features-worker.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-long-protein.sh
# Knobs: LENGTHS (default "5000 10000 35000"), PRECISIONS (default "fp32 bf16"), MODEL.
set -uo pipefail
bundle=${BUNDLE:-.bundle}
out=${OUT:-/tmp/out}; mkdir -p "$out"
work=/tmp/long-protein; mkdir -p "$work"
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache}
model=${MODEL:-test-data/esm2-transformers5/masked-lm}
status=0
for n in ${LENGTHS:-5000 10000 35000}; do
  python3 -c "import random,sys; r=random.Random($n); a='ACDEFGHIKLMNPQRSTVWY'; print('>p$n'); print(''.join(r.choice(a) for _ in range($n)))" > "$work/p$n.faa"
  for p in ${PRECISIONS:-fp32 bf16}; do
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$work/gpu.csv" &
    sampler=$!
    python3 -c 'import resource, subprocess, sys, time; t = time.time(); rc = subprocess.call(sys.argv[2:]); open(sys.argv[1], "w").write("%d %.1f" % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, time.time() - t)); sys.exit(rc)' \
      "$work/time.txt" timeout -k 5 240 node "$bundle/virnucpro-entry.mjs" embed esm2 --model "$model" \
      --input "$work/p$n.faa" --output "$work/p$n-$p.safetensors" --backend cuda --precision "$p" --force --quiet 2> "$work/err.txt"
    rc=$?; kill $sampler; [ $rc = 0 ] || status=1
    read -r rss wall < "$work/time.txt"
    gpu=$(sort -n "$work/gpu.csv" | tail -1)
    echo "residues $n precision $p: rc=$rc wall $wall s, peak RSS $rss MiB, peak GPU memory used $gpu MiB (whole card)" | tee -a "$out/long-protein.txt"
    [ $rc = 0 ] || tail -c 600 "$work/err.txt" | tee -a "$out/long-protein.txt"
  done
done
exit $status
