#!/usr/bin/env bash
# Batch invariance of `virnucpro predict` end to end on cuda, in each precision, in one device call: models of odd
# shapes (ESM-2 5 heads × 18, 3 layers; DNABERT-S 7 heads × 11, 2 layers), a mixed input (below); one run against SHARDS
# shards + merge, KILLS SIGKILLs each followed by --resume, and two workers on the one GPU with one killed mid-run
# (tools/bench/invariance/predict-invariance.mjs; the same checks run on wasm in CI).
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh tools/device/virnucpro-entry.ts \
#          packages/predict/src/features-worker.ts tools/make-demo-models.mjs
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-predict-invariance-gpu.sh
# Carry .bench-data too (the E. coli genome, see tools/bench/predict/README.md).
# Knobs: INPUT (a FASTA instead of the mixed one), BACKEND (default cuda; onednn or cpu for a dry run here with PRECISIONS=fp32), PRECISIONS (default "fp32 fp16 bf16 fp8"), SHARDS (default 10), KILLS (default 10), LIMIT_S per precision (150).
set -uo pipefail
bundle=${BUNDLE:-.bundle}
out=${OUT:-/tmp/out}; mkdir -p "$out"
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache}
# The layout the bundled code expects (see run-predict-bench.sh).
mkdir -p worker && cp packages/runtime/worker/*.mjs worker/
cp "$bundle/features-worker.mjs" "$bundle/features-worker.js" && echo '{"type":"module"}' > "$bundle/package.json"
node "$bundle/make-demo-models.mjs" /tmp/odd-models --esm 3,90,5,171 --dnabert 2,77,7,131 > /dev/null || exit 1
# The input: lambda alone is 132 frames, done in well under a second on the GPU, before a worker can be killed
# mid-run; so, by default, a mixed file: lambda, the E. coli slice of test-data, and the first 1.5 Mb of the E. coli
# genome where .bench-data has it (~4,000 frames: a few seconds a run).
input=${INPUT:-/tmp/inv-input.fa}
if [ -z "${INPUT:-}" ]; then
  cat test-data/lambda_virus.fa test-data/ecoli536_1-30000.fa > "$input"
  [ -f .bench-data/NC_008253.fna.gz ] && python3 -c 'import gzip, sys; lines = gzip.open(sys.argv[1], "rt").read().split("\n"); seq = "".join(lines[1:])[:1500000]; print(">ecoli536_slice_1_1500000"); print("\n".join(seq[i:i + 80] for i in range(0, len(seq), 80)))' .bench-data/NC_008253.fna.gz >> "$input"
fi
status=0
for p in ${PRECISIONS:-fp32 fp16 bf16 fp8}; do
  echo "== $p"
  timeout -k 5 "${LIMIT_S:-150}" node tools/bench/invariance/predict-invariance.mjs --cli "$bundle/virnucpro-entry.mjs" --models /tmp/odd-models \
    --input "$input" --work "/tmp/inv-$p" --backend "${BACKEND:-cuda}" --precision "$p" --shards "${SHARDS:-10}" --kills "${KILLS:-10}" > "$out/predict-invariance-$p.json"
  rc=$?; [ $rc = 0 ] || status=1
  echo "rc=$rc"; tr -d '\n ' < "$out/predict-invariance-$p.json" | cut -c1-900; echo
done
exit $status
