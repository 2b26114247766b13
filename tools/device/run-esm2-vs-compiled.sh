#!/usr/bin/env bash
# ESM-2 3B (random weights) against PyTorch fp16 eager and torch.compile (dynamic=True, default mode) in ONE device
# call: ours bf16 and fp8 on proteins of 52 / 101 / 167 tokens at 16K and 32K budgets, with 2 batches in flight (as
# the tools run) and, in round 1, with 1 (each batch awaited); then pytorch_esm2.py on the same lengths and budgets
# (compilation reported apart); then ours again (round 2). SEQUENCES proteins per length (default 3,000).
# QUICK=1: one call's short version — the 32K budget only, 2 batches in flight, one round of ours before PyTorch.
# Here:  NO_DAWN=1 bash tools/device/bundle.sh tools/bench/esm2/bench-esm2.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-esm2-vs-compiled.sh
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
status=0
n=${SEQUENCES:-3000}
budgets=16384,32768; [ -n "${QUICK:-}" ] && budgets=32768
ours() { # ROUND PRECISION IN_FLIGHT
  timeout -k 5 150 node .bundle/bench-esm2.mjs --backend cuda --size 3B --precision "$2" --in-flight "$3" --length-sets 50:99:165 --budgets "$budgets" \
    --sequences "$n" 2> "$out/ours-$2-$3-round$1.err" > "$out/ours-$2-$3-round$1.json" || status=1
  grep -o '"residues":\[[0-9]*\]\|"tokenBudget":[0-9]*\|"tokensPerSecond":[0-9]*' "$out/ours-$2-$3-round$1.err" | paste -sd' ' | sed "s/^/ours $2, $3 in flight, round $1: /"
}
flights="2 1"; [ -n "${QUICK:-}" ] && flights=2
for p in bf16 fp8; do for k in $flights; do ours 1 $p $k; done; done
echo "== PyTorch ($(date -u +%T))"
timeout -k 5 330 python3 tools/bench/esm2/pytorch_esm2.py --size 3B --length-sets 52:101:167 --token-budgets "$budgets" --sequences "$n" --modes eager,compile \
  > "$out/torch.json" 2> "$out/torch.err" || status=1
grep '^{' "$out/torch.err" | cut -c1-330
[ -z "${QUICK:-}" ] && for p in bf16 fp8; do ours 2 $p 2; done
echo "done $(date -u +%T)"
exit $status
