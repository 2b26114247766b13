#!/usr/bin/env bash
# The end of a run on the GPU machine's disk: how long an fsync of freshly written data takes there, and `predict`'s
# host pipeline (simulated devices, tools/bench/host-pipeline) at FRAMES frames with 2 workers, alternating a build
# without the output files' background write-back (.bundle-host-base) and one with it (.bundle-host), ROUNDS rounds:
# the `write` stage (fsync of every result file, the consensus csv merged) of each run.
# The write-back was measured on 2026-11-28 (docs/benchmarks/scaling.md, "Two GPUs in bf16") and not kept: 583a169 has
# it, b774394 takes it out. Here: OUT_DIR=.bundle-host bash tools/bench/host-pipeline/bundle.sh at each build (the
# one without into .bundle-host-base), each folder tarred as FOLDER.tar.xz (what travels is limited to 64 MiB).
# There: source .device/on-device.sh && bash tools/device/run-write-back-ab.sh [FRAMES] [ROUNDS]
set -uo pipefail
frames=${1:-1000000}; rounds=${2:-2}
out=${OUT:-/tmp/out}; mkdir -p "$out"
df -h /tmp | tail -1
python3 - <<'PY'
import os, time
for mb in (20, 40, 80):
    fn = f'/tmp/fsync-probe-{mb}'
    fd = os.open(fn, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    buf = os.urandom(1 << 20)
    for _ in range(mb): os.write(fd, buf)
    t = time.time(); os.fsync(fd); print(f'fsync of {mb} MB just written: {time.time() - t:.3f} s', flush=True)
    os.close(fd); os.unlink(fn)
PY
for b in .bundle-host .bundle-host-base; do [ -d "$b" ] || [ ! -f "$b.tar.xz" ] || tar xJf "$b.tar.xz"; done
reads=/tmp/host-reads-$frames.fa
[ -f "$reads" ] || python3 tools/bench/predict/make_reads.py --frames "$frames" --out "$reads" test-data/lambda_virus.fa test-data/ecoli536_1-30000.fa > /dev/null
for round in $(seq "$rounds"); do
  for build in .bundle-host-base .bundle-host; do
    rm -rf /tmp/host-out
    r=$(node "$build/b/host-pipeline.mjs" "$reads" /tmp/host-out 2 test-data/demo-models 300 | tail -n 1)
    echo "round $round $build: $r" | tee -a "$out/write-back-ab.txt"
  done
done
