#!/usr/bin/env bash
# `virnucpro embed` of two builds, alternated in ONE device call (the GPU's speed varies from one machine to the
# next): DNABERT-S on 150,000 windows of 150 bp (LENGTHS="500 300": windows of each length, 22.5M bp each) cut at
# random from phage lambda and E. coli 536 (fp8 and bf16,
# --token-budget 65536, ROUNDS rounds), then ESM-2 3B fp8 on 30,000 random proteins of 48–52 residues (32K budget,
# one round); tokens/s of the compute phase from --summary, and whether the two builds' embeddings are the same bytes.
# Each run's line ends with what it cost (tools/device/rusage.py: CPU seconds, context switches, load average), to
# tell a slow run that worked more from one that waited or was crowded out.
# Models: tools/bench/predict/make_models.py (random weights, kept in /tmp/models for later calls).
# Here:  the baseline bundle built from a clean checkout, tarred to .bundle-base.tar.xz; the new one to .bundle.tar.xz
#        (NO_DAWN=1 bash tools/device/bundle.sh tools/device/virnucpro-entry.ts packages/predict/src/features-worker.ts)
# There: bash tools/device/ab-embed.sh [ROUNDS]   (carry .device, .bundle.tar.xz, .bundle-base.tar.xz)
#        One build, two settings: carry .bundle.tar.xz alone and set BASE_ENV / NEW_ENV (VAR=VALUE[,VAR=VALUE]),
#        e.g. NEW_ENV=VIRNUCPRO_PINNED_UPLOADS=1 bash tools/device/ab-embed.sh 2
#        A third side: ALT_ENV=... runs the new build again with those settings ("alt"), alternated with the two.
#        ESM_LENGTHS="50 99 165": ESM-2 on proteins of each length (1.5M tokens each; default 50), every side.
set -uo pipefail
rounds=${1:-2}
source .device/on-device.sh; export VIRNUCPRO_CUDA_CACHE=/tmp/vnp-cuda-cache
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1
mkdir -p worker && cp packages/runtime/worker/*.mjs worker/
[ -f .bundle-base.tar.xz ] || cp .bundle.tar.xz .bundle-base.tar.xz
for b in .bundle .bundle-base; do rm -rf $b; mkdir -p $b && tar xJf $b.tar.xz -C $b; cp $b/features-worker.mjs $b/features-worker.js; echo '{"type":"module"}' > $b/package.json; done
[ -f /tmp/models/models.json ] || python3 tools/bench/predict/make_models.py --out /tmp/models > /tmp/models.log 2>&1
python3 - <<'PY'
import os, random
def genome(p): return "".join(l.strip() for l in open(p) if not l.startswith(">")).upper()
src = [genome("test-data/lambda_virus.fa"), genome("test-data/ecoli536_1-30000.fa")]
random.seed(47)
for bp in map(int, os.environ.get("LENGTHS", "150").split()):
    with open(f"/tmp/w{bp}.fa", "w") as f:
        for i in range(150000 * 150 // bp):
            s = random.choice(src); st = random.randrange(len(s) - bp); f.write(f">w{i}\n{s[st:st + bp]}\n")
for aa in map(int, os.environ.get("ESM_LENGTHS", "50").split()):
    with open(f"/tmp/p{aa}.faa", "w") as f:
        for i in range(30000 * 50 // aa):
            n = random.randint(aa - 2, aa + 2); f.write(f">p{i}\n{''.join(random.choice('ACDEFGHIKLMNPQRSTVWY') for _ in range(n))}\n")
PY
run() { # SIDE BUNDLE MODEL INPUT PRECISION BUDGET
  local settings; case "$1" in base) settings=${BASE_ENV:-};; alt) settings=${ALT_ENV:-};; *) settings=${NEW_ENV:-};; esac
  python3 tools/device/rusage.py /tmp/ru.txt env ${settings//,/ } node "$2/virnucpro-entry.mjs" embed "$3" --model "/tmp/models/$([ "$3" = dnabert ] && echo dnabert-s || echo esm2-3B)" --input "$4" \
    -o "/tmp/e-$1-$3-$5.safetensors" --force --backend cuda --precision "$5" --token-budget "$6" --summary /tmp/s.json > /dev/null 2> "/tmp/err-$1.txt"
  echo "$1 $3 $5 rc=$? $(tr -d ' \n' < /tmp/s.json | grep -o '"seconds":[0-9.]*\|"tokensPerSecond":[0-9]*' | paste -sd' ') | $(cat /tmp/ru.txt)"
}
sides="base:.bundle-base new:.bundle${ALT_ENV:+ alt:.bundle}"
for bp in ${LENGTHS:-150}; do for k in $(seq "$rounds"); do for side in $sides; do for p in fp8 bf16; do
  echo -n "${bp} bp: "; run "${side%%:*}" "${side#*:}" dnabert "/tmp/w$bp.fa" $p 65536
  cmp -s "/tmp/e-${side%%:*}-dnabert-$p.safetensors" "/tmp/e-base-dnabert-$p.safetensors" || echo "dnabert $bp bp $p DIFFER"
done; done; done; done
for aa in ${ESM_LENGTHS:-50}; do for side in $sides; do
  echo -n "${aa} aa: "; run "${side%%:*}" "${side#*:}" esm2 "/tmp/p$aa.faa" fp8 32768
  cmp -s "/tmp/e-${side%%:*}-esm2-fp8.safetensors" "/tmp/e-base-esm2-fp8.safetensors" || echo "esm2 $aa aa fp8 DIFFER"
done; done
for f in dnabert-fp8 dnabert-bf16; do cmp -s "/tmp/e-base-$f.safetensors" "/tmp/e-new-$f.safetensors" && echo "$f same bytes" || echo "$f DIFFER"; done
date -u +%T
