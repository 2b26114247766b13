#!/usr/bin/env bash
# Whether `virnucpro embed dnabert`'s compute phase is a steady rate or fixed costs spread over a short run: the command
# on windows of phage lambda and E. coli 536 (as ab-embed.sh cuts them) at one size and at SCALE times it (fp8 and
# bf16, alternated over ROUNDS rounds), then `bench-dnabert` (the model alone, its windows packed as one array) on the
# same numbers of lambda windows, in ONE device call. tokens/s of the compute phase from --summary.
# Here:  NO_DAWN=1 bash tools/device/bundle.sh tools/device/virnucpro-entry.ts packages/predict/src/features-worker.ts tools/bench/dnabert/bench-dnabert.ts
#        bash ../shared/device/pack.sh; tar cJf .bundle.tar.xz -C .bundle .
# There: bash tools/device/run-embed-sizes.sh   (carry .device, .bundle.tar.xz); knobs LENGTHS ("150 500"), SCALE (4),
#        ROUNDS (2), TRACE=1 (one more fp8 run of the largest input at the first length with VIRNUCPRO_CUDA_TRACE=1000).
set -uo pipefail
source .device/on-device.sh; export VIRNUCPRO_CUDA_CACHE=/tmp/vnp-cuda-cache
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1
rm -rf .bundle && mkdir .bundle && tar xJf .bundle.tar.xz -C .bundle && cp .bundle/features-worker.mjs .bundle/features-worker.js && echo '{"type":"module"}' > .bundle/package.json
[ -f /tmp/models/models.json ] || python3 tools/bench/predict/make_models.py --out /tmp/models > /tmp/models.log 2>&1
scale=${SCALE:-4}
LENGTHS=${LENGTHS:-150 500} SCALE=$scale python3 - <<'PY'
import os, random
def genome(p): return "".join(l.strip() for l in open(p) if not l.startswith(">")).upper()
src = [genome("test-data/lambda_virus.fa"), genome("test-data/ecoli536_1-30000.fa")]
random.seed(47)
for bp in map(int, os.environ["LENGTHS"].split()):
    for k in (1, int(os.environ["SCALE"])):
        with open(f"/tmp/w{bp}x{k}.fa", "w") as f:
            for i in range(k * 150000 * 150 // bp):
                s = random.choice(src); st = random.randrange(len(s) - bp); f.write(f">w{i}\n{s[st:st + bp]}\n")
PY
run() { # INPUT PRECISION [ENV]
  env ${3:-} node .bundle/virnucpro-entry.mjs embed dnabert --model /tmp/models/dnabert-s --input "$1" -o /tmp/e.safetensors --force \
    --backend cuda --precision "$2" --token-budget 65536 --summary /tmp/s.json > /dev/null 2> /tmp/err.txt
  echo "$(basename "$1") $2 rc=$? $(tr -d ' \n' < /tmp/s.json | grep -o '"seconds":[0-9.]*\|"tokens":[0-9]*\|"batches":[0-9]*\|"tokensPerSecond":[0-9]*' | paste -sd' ')"
}
for bp in ${LENGTHS:-150 500}; do for k in $(seq "${ROUNDS:-2}"); do for n in 1 "$scale"; do for p in fp8 bf16; do
  run "/tmp/w${bp}x$n.fa" $p
done; done; done; done
first=${LENGTHS:-150 500}; first=${first%% *}
if [ "${TRACE:-0}" = 1 ]; then run "/tmp/w${first}x$scale.fa" fp8 VIRNUCPRO_CUDA_TRACE=1000; grep -A14 'cuda-trace (dispose' /tmp/err.txt | head -16; fi
for n in 1 "$scale"; do for p in fp8 bf16; do
  timeout -k 5 120 node .bundle/bench-dnabert.mjs --backend cuda --precision $p --fasta test-data/lambda_virus.fa --length-sets "$first" \
    --budgets 65536 --sequences $((n * 150000 * 150 / first)) --tokenizer-sequences 0 --no-hf > /tmp/b.json 2> /tmp/b.err
  echo "bench ${first} bp x$n $p rc=$? $(tr -d ' \n' < /tmp/b.json | grep -o '"tokensPerSecond":[0-9]*\|"batches":[0-9]*' | paste -sd' ')"
done; done
date -u +%T
