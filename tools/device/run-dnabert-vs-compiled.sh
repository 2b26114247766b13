#!/usr/bin/env bash
# DNABERT-S (117M, random weights) against PyTorch MosaicBERT fp16 eager and torch.compile in ONE device call, on the
# same token counts: ours bf16 and fp8 on 150/300/500-bp windows of phage lambda at a 64K budget, with 2 batches in
# flight (as the tools run) and with 1 (each batch awaited; IN_FLIGHT="2 1" by default), run before and after the
# reference (rounds 1 and 2), and pytorch_dnabert.py on the token lengths of our bf16 run (32K and 64K
# budgets, compilation reported apart). SEQUENCES windows per length (default 32,000: a run of ours is then ~1 s of
# GPU work; 8,000 gave 0.2–0.5 s, within launch noise).
# Here:  bash ../shared/device/pack.sh && NO_DAWN=1 bash tools/device/bundle.sh tools/bench/dnabert/bench-dnabert.ts
# There: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-dnabert-vs-compiled.sh
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
status=0
common=(--tokenizer test-data/dnabert/tokenizer.json --fasta test-data/lambda_virus.fa --tokenizer-sequences 0 --budgets 65536 --length-sets 150:300:500 --sequences "${SEQUENCES:-32000}")
ours() { # ROUND
  for p in bf16 fp8; do
    for n in ${IN_FLIGHT:-2 1}; do
      local extra=(); [ "$p" = bf16 ] && [ "$1" = 1 ] && extra=(--lengths-out /tmp/dnabert-lengths.json)
      timeout -k 5 120 node .bundle/bench-dnabert.mjs --backend cuda --precision "$p" --in-flight "$n" "${common[@]}" "${extra[@]}" 2>&1 >/dev/null \
        | grep -o '"basePairs":\[[0-9]*\]\|"tokensPerSecond":[0-9]*' | paste -sd' ' | sed "s/^/ours $p, $n in flight, round $1: /" || status=1
    done
  done
}
ours 1
echo "== PyTorch ($(date -u +%T))"
timeout -k 5 300 python3 tools/bench/dnabert/pytorch_dnabert.py --token-lengths /tmp/dnabert-lengths.json --token-budgets 32768,65536 --modes eager,compile \
  > "$out/torch.json" 2> "$out/torch.err" || status=1
tail -n 20 "$out/torch.err" | cut -c1-300
ours 2
echo "done $(date -u +%T)"
exit $status
