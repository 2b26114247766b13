#!/usr/bin/env bash
# Everything measured on the GPU machine for the model issues, in one call (device time is scarce):
# webgpu parity of ESM-2 (three checkpoint layouts) and DNABERT-S against the PyTorch fixtures, webgpu
# throughput of random-weight ESM-2 (8M … 3B) and DNABERT-S (117M), and the PyTorch fp16 reference.
# Usage there: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/run-model-benches.sh
# (after `bash tools/device/bundle.sh tools/bench/esm2/*-esm2.ts tools/bench/dnabert/{bench,parity}-dnabert.ts` here).
set -uo pipefail
source "$(dirname "$0")/preamble.sh"
step() { local name=$1 limit=$2; shift 2; echo "== $name"; timeout "$limit" "$@" > "$out/$name.json" 2> "$out/$name.err"; echo "rc=$? $(tail -c 300 "$out/$name.err" | tr '\n' ' ')"; grep -E '"(pass|tokensPerSecond|hiddenMaxAbs|meanMaxAbs)"' "$out/$name.json" | tr -d '\n '; echo; }
step parity-esm2-safetensors 120 node .bundle/parity-esm2.mjs --backend webgpu
step parity-esm2-fairesm 120 node .bundle/parity-esm2.mjs --backend webgpu --model test-data/esm2/fair_esm.pt
step parity-esm2-bin 120 node .bundle/parity-esm2.mjs --backend webgpu --model test-data/esm2/pytorch_model.bin
step parity-dnabert 120 node .bundle/parity-dnabert.mjs --backend webgpu
step bench-esm2-8M 120 node .bundle/bench-esm2.mjs --backend webgpu --size 8M --sequences 256
step bench-esm2-650M 180 node .bundle/bench-esm2.mjs --backend webgpu --size 650M --sequences 128
step bench-esm2-3B 300 node .bundle/bench-esm2.mjs --backend webgpu --size 3B --sequences 96
step bench-dnabert 180 node .bundle/bench-dnabert.mjs --backend webgpu --tokenizer test-data/dnabert/tokenizer.json --sequences 512 --no-hf
export PYTHONUNBUFFERED=1
step torch-esm2-3B 240 python3 tools/bench/esm2/pytorch_esm2.py --size 3B --sequences 1024
step torch-esm2-650M 120 python3 tools/bench/esm2/pytorch_esm2.py --size 650M --sequences 1024
