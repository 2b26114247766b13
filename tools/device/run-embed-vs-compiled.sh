#!/usr/bin/env bash
# The command a user runs against compiled PyTorch, in ONE device call (issue 47's acceptance):
#   MODEL=esm2 (default): `virnucpro embed esm2` (ESM-2 3B, random weights from tools/bench/predict/make_models.py) on
#     random proteins of 50 / 99 / 165 ± 2 residues (52 / 101 / 167 tokens), TOKENS tokens each (default 5.2M), fp8 and
#     bf16, --token-budget 32768; then pytorch_esm2.py (transformers EsmModel fp16, SDPA, length-sorted padded batches)
#     eager and torch.compile(dynamic=True) on SEQUENCES proteins of the same lengths (default 3,000; its compilation
#     timed apart); then ours fp8 on the shortest set again (the machine's drift over the call).
#   MODEL=dnabert: `virnucpro embed dnabert` (DNABERT-S, random weights, the real tokenizer) on windows of 150 / 300 /
#     500 bp cut at random from phage lambda and E. coli 536, TOKENS tokens each, fp8 and bf16, --token-budget 65536;
#     then pytorch_dnabert.py eager and compiled on the same windows' token counts (every window, so the same tokens).
# Ours: tokens/s of the compute phase from --summary (models loaded before its clock starts) and the whole command's
# wall time beside it. NO_TORCH=1 (dnabert): ours only, no PyTorch (so no ratio). Everything goes to
# $OUT/embed-vs-compiled-MODEL.tgz, the summary lines to stdout. AGAIN=0: no drift run at the end.
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh tools/device/virnucpro-entry.ts \
#          packages/predict/src/features-worker.ts && tar cJf .bundle.tar.xz -C .bundle .
# There: source .device/on-device.sh && mkdir -p .bundle && tar xJf .bundle.tar.xz -C .bundle && \
#          bash tools/device/run-embed-vs-compiled.sh
set -uo pipefail
model=${MODEL:-esm2}
source "$(dirname "$0")/preamble.sh"
work=/tmp/embed-vs-compiled-$model; rm -rf "$work"; mkdir -p "$work"
trap 'cp "$out/gpu.txt" "$work/" 2>/dev/null; tar czf "$out/embed-vs-compiled-$model.tgz" -C "$work" . 2>/dev/null' EXIT
tokens=${TOKENS:-5200000}
status=0
# The layout the bundled code expects (as run-scaling.sh makes it): the runtime's worker beside the bundle.
mkdir -p worker && cp packages/runtime/worker/*.mjs worker/
cp .bundle/features-worker.mjs .bundle/features-worker.js && echo '{"type":"module"}' > .bundle/package.json
[ -f /tmp/models/models.json ] || python3 tools/bench/predict/make_models.py --out /tmp/models > "$work/models.log" 2>&1 || { echo "make_models failed"; exit 1; }

ours() { # NAME INPUT PRECISION BUDGET
  local t0 t1 rc
  t0=$(date +%s%N)
  timeout -k 5 240 node .bundle/virnucpro-entry.mjs embed "$model" --model "/tmp/models/$modeldir" --input "$2" -o "/tmp/embed-$1-$3.safetensors" --force \
    --backend cuda --precision "$3" --token-budget "$4" --summary "$work/summary-$1-$3.json" > "$work/embed-$1-$3.out" 2> "$work/embed-$1-$3.err"
  rc=$?; t1=$(date +%s%N); [ $rc = 0 ] || status=1
  echo "ours $3 $1: rc=$rc, command wall $(( (t1 - t0) / 1000000 )) ms | $(tr -d ' \n' < "$work/summary-$1-$3.json" 2>/dev/null \
    | grep -o '"tokens":[0-9]*\|"seconds":[0-9.]*\|"tokensPerSecond":[0-9]*\|"packingEfficiency":[0-9.]\{6\}' | paste -sd' ')"
}

if [ "$model" = esm2 ]; then
  modeldir=esm2-3B
  python3 - "$tokens" "$work" <<'EOF'
import random, sys
tokens, work = int(sys.argv[1]), sys.argv[2]
random.seed(47)
for residues in (50, 99, 165):
    with open(f"/tmp/proteins-{residues}.faa", "w") as f:
        total = i = 0
        while total < tokens:
            n = random.randint(residues - 2, residues + 2)
            f.write(f">p{i}\n{''.join(random.choice('ACDEFGHIKLMNPQRSTVWY') for _ in range(n))}\n")
            total += n + 2; i += 1
    print(f"{residues} residues: {i} proteins, {total} tokens", file=open(f"{work}/inputs.txt", "a"))
EOF
  cat "$work/inputs.txt"
  for precision in fp8 bf16; do for r in 50 99 165; do ours "$r" "/tmp/proteins-$r.faa" "$precision" 32768; done; done
  echo "== PyTorch ($(date -u +%T))"
  sets=$(python3 -c 'print(":".join(",".join(str(n + 2) for n in range(r - 2, r + 3)) for r in (50, 99, 165)))')
  timeout -k 5 300 python3 tools/bench/esm2/pytorch_esm2.py --size 3B --length-sets "$sets" --token-budgets 32768 --sequences "${SEQUENCES:-3000}" \
    --modes eager,compile > "$work/torch.json" 2> "$work/torch.err" || status=1
  grep '^{' "$work/torch.err" | grep -o '"mode": "[a-z]*"\|"compileSeconds": [0-9.]*\|"lengths": \[[0-9]*\|"tokensPerSecond": [0-9]*' | paste -sd' ' | sed 's/"mode"/\n"mode"/g' | sed '/^$/d'
  [ "${AGAIN:-1}" = 0 ] || ours 50-again /tmp/proteins-50.faa fp8 32768
else
  modeldir=dnabert-s
  python3 - "$tokens" "$work" /tmp/models/dnabert-s/tokenizer.json <<'EOF'
import json, random, sys
from tokenizers import Tokenizer
tokens, work, tok = int(sys.argv[1]), sys.argv[2], Tokenizer.from_file(sys.argv[3])
tok.no_padding(); tok.no_truncation()  # tokenizer.json pads to its model length
def genome(path):
    return "".join(l.strip() for l in open(path) if not l.startswith(">")).upper()
sources = [genome("test-data/lambda_virus.fa"), genome("test-data/ecoli536_1-30000.fa")]
random.seed(47)
lengths = {}
for bp in (150, 300, 500):
    counts = []
    with open(f"/tmp/windows-{bp}.fa", "w") as f:
        total = i = 0
        while total < tokens:
            s = random.choice(sources); start = random.randrange(len(s) - bp)
            w = s[start:start + bp]
            n = len(tok.encode(w).ids)  # [CLS] … [SEP] included, as the model sees them
            f.write(f">w{i}\n{w}\n"); counts.append(n); total += n; i += 1
    lengths[str(bp)] = counts
    print(f"{bp} bp: {i} windows, {total} tokens", file=open(f"{work}/inputs.txt", "a"))
json.dump(lengths, open("/tmp/dnabert-window-tokens.json", "w"))
EOF
  cat "$work/inputs.txt"
  for precision in fp8 bf16; do for bp in 150 300 500; do ours "$bp" "/tmp/windows-$bp.fa" "$precision" 65536; done; done
  [ -n "${NO_TORCH:-}" ] && { echo "done $(date -u +%T) (NO_TORCH: ours only)"; exit $status; }
  echo "== PyTorch ($(date -u +%T))"
  timeout -k 5 300 python3 tools/bench/dnabert/pytorch_dnabert.py --token-lengths /tmp/dnabert-window-tokens.json --token-budgets 65536 \
    --modes eager,compile > "$work/torch.json" 2> "$work/torch.err" || status=1
  grep '^{' "$work/torch.err" | grep -o '"mode": "[a-z]*"\|"set": "[0-9]*"\|"tokenBudget": [0-9]*\|"warmupSeconds": [0-9.]*\|"tokensPerSecond": [0-9]*' | paste -sd' ' | sed 's/"mode"/\n"mode"/g' | sed '/^$/d'
  [ "${AGAIN:-1}" = 0 ] || ours 150-again /tmp/windows-150.fa fp8 65536
fi
echo "done $(date -u +%T)"
exit $status
