#!/usr/bin/env bash
# Where `virnucpro embed esm2` (the command a user runs) loses to the model bench (issue 47, step 1), in one device
# call: ESM-2 3B with random weights (tools/bench/predict/make_models.py), PROTEINS random proteins of 50 ± 2
# residues; the command in fp8 and bf16 with VIRNUCPRO_CUDA_TRACE=1 (how long the stream ran empty between batches,
# the native calls that blocked the model's thread, its event-loop use) and its --summary; then the model bench
# (bench-esm2: the forward passes alone, 2 batches in flight) on proteins of the same length and the same budget.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh tools/device/virnucpro-entry.ts \
#          packages/predict/src/features-worker.ts tools/bench/esm2/bench-esm2.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-embed-trace.sh
# Knobs: PROTEINS (default 100000), BUDGET (default 32768), PRECISIONS (default "fp8 bf16"), BUNDLES (default .bundle:
# the command of each bundle folder in turn, e.g. "BUNDLES=.bundle-base .bundle" for a before/after in one call; a
# DIR.tar.xz is unpacked to DIR first; the model bench runs from the last one).
# Everything goes to $OUT/embed-trace.tgz; the summary lines to stdout.
set -uo pipefail
out=/tmp/embed-trace; rm -rf "$out"; mkdir -p "$out"
trap 'tar czf "${OUT:-/tmp}/embed-trace.tgz" -C "$out" . 2>/dev/null' EXIT
export VIRNUCPRO_CUDA_CACHE=${VIRNUCPRO_CUDA_CACHE:-/tmp/vnp-cuda-cache}
proteins=${PROTEINS:-100000}; budget=${BUDGET:-32768}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1 | tee "$out/gpu.txt"
# The layout the bundled code expects (as run-scaling.sh makes it): the runtime's worker beside the bundle.
mkdir -p worker && cp packages/runtime/worker/*.mjs worker/
[ -f /tmp/models/models.json ] || python3 tools/bench/predict/make_models.py --out /tmp/models > "$out/models.log" 2>&1
python3 - "$proteins" > /tmp/proteins.faa <<'EOF'
import random, sys
random.seed(47)
for i in range(int(sys.argv[1])):
    print(f">p{i}\n{''.join(random.choice('ACDEFGHIKLMNPQRSTVWY') for _ in range(random.randint(48, 52)))}")
EOF
bundles=${BUNDLES:-.bundle}
for b in $bundles; do case $b in *.tar.xz) d=${b%.tar.xz}; [ -d "$d" ] || { mkdir -p "$d" && tar xJf "$b" -C "$d"; } ;; esac; done
bundles=$(echo "$bundles" | sed 's/\.tar\.xz//g')
for b in $bundles; do cp "$b/features-worker.mjs" "$b/features-worker.js" && echo '{"type":"module"}' > "$b/package.json"; done
for precision in ${PRECISIONS:-fp8 bf16}; do
  for bundle in $bundles; do
    name=$(basename "$bundle")-$precision
    t0=$(date +%s%N)
    VIRNUCPRO_CUDA_TRACE=1 timeout 200 node "$bundle/virnucpro-entry.mjs" embed esm2 --model /tmp/models/esm2-3B --input /tmp/proteins.faa \
      -o "/tmp/embed-$name.safetensors" --force --backend cuda --precision "$precision" --token-budget "$budget" \
      --summary "$out/summary-$name.json" > "$out/embed-$name.out" 2> "$out/embed-$name.err"
    rc=$?; t1=$(date +%s%N)
    echo "embed esm2 $precision ($bundle): rc=$rc wall $(( (t1 - t0) / 1000000 )) ms | $(tr -d ' \n' < "$out/summary-$name.json" | grep -o '"tokensPerSecond":[0-9.]*\|"packingEfficiency":[0-9.]*' | paste -sd' ')"
    grep -A3 'cuda-trace' "$out/embed-$name.err" | head -4
  done
  last=${bundles##* }
  if [ "$(echo $bundles | wc -w)" -gt 1 ]; then
    cmp -s "/tmp/embed-$(basename "${bundles%% *}")-$precision.safetensors" "/tmp/embed-$(basename "$last")-$precision.safetensors" \
      && echo "embeddings $precision: the same bytes from every bundle" || echo "embeddings $precision: the bundles' files DIFFER"
  fi
  timeout 120 node "$last/bench-esm2.mjs" --backend cuda --size 3B --precision "$precision" --in-flight 2 --length-sets 50 --budgets "$budget" \
    --sequences 20000 > "$out/bench-$precision.json" 2> "$out/bench-$precision.err"
  echo "model bench $precision: rc=$? $(grep -o '"tokensPerSecond":[0-9]*' "$out/bench-$precision.err" | paste -sd' ')"
done
