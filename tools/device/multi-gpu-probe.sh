#!/usr/bin/env bash
# Can Dawn (WebGPU) put one worker on each of several identical GPUs? Dawn selects adapters only by
# name, so this tries hiding the other GPUs' device nodes from each worker (a private mount namespace
# with /dev/nvidiaN bound to /dev/null, as container runtimes expose a subset of GPUs), then measures
# ESM-2 3B (random weights) tokens/s with one process on one GPU and with one process per GPU at once.
# Usage there: source .device/on-device.sh && source tools/device/unpack-bundle.sh && bash tools/device/multi-gpu-probe.sh
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
log() { echo "$@" | tee -a "$out/multi-gpu.log"; }
nvidia-smi -L | tee -a "$out/multi-gpu.log"
gpus=$(nvidia-smi -L | wc -l)
cat > /tmp/list.mjs <<'JS'
import { createRequire } from 'node:module';
const { create } = createRequire(process.cwd() + '/.bundle/x.js')('webgpu');
const gpu = create(['adapter=\u0000none']);
try { await gpu.requestAdapter(); } catch (e) { console.log(String(e?.message ?? e)); }
const a = await create([]).requestAdapter({ powerPreference: 'high-performance' });
console.log('default adapter:', a ? JSON.stringify({ vendor: a.info?.vendor, device: a.info?.device, description: a.info?.description }) : 'none');
process.exit(0);
JS
log "== adapters seen with every GPU visible"; node /tmp/list.mjs 2>&1 | tee -a "$out/multi-gpu.log"
# only GPU $1 visible: every other /dev/nvidiaN bound to /dev/null in a private mount namespace
only() { local keep=$1; shift; local binds=""; for j in $(seq 0 $((gpus - 1))); do [ "$j" = "$keep" ] || binds="$binds mount --bind /dev/null /dev/nvidia$j;"; done; unshare -m bash -c "$binds $*"; }
for i in $(seq 0 $((gpus - 1))); do log "== adapters seen with only GPU $i's node"; only "$i" node /tmp/list.mjs 2>&1 | tee -a "$out/multi-gpu.log"; done
bench="node .bundle/bench-esm2.mjs --backend webgpu --size 3B --sequences 224"
log "== one process, GPU 0 only"; only 0 "$bench" > "$out/one.json" 2> "$out/one.err"; log "rc=$? $(grep tokensPerSecond "$out/one.json")"
log "== one process per GPU, concurrently"
for i in $(seq 0 $((gpus - 1))); do only "$i" "$bench" > "$out/gpu$i.json" 2> "$out/gpu$i.err" & done
( for k in 1 2 3 4 5 6; do sleep 12; nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv,noheader | tr '\n' ' '; echo; done ) >> "$out/multi-gpu.log" &
wait
for i in $(seq 0 $((gpus - 1))); do log "gpu$i: $(grep -E 'tokensPerSecond|"seconds"' "$out/gpu$i.json" | tr -d '\n ') $(tail -c 200 "$out/gpu$i.err")"; done
