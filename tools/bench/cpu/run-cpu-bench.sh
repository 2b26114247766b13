#!/usr/bin/env bash
# The CPU path against PyTorch on the same cores, whole processes, runs alternated (ours, PyTorch, ours, ...) so a
# busy machine slows both alike; prints each run and the median ratio. Needs python3 with torch (Debian's
# python3-torch is enough) and a built checkout (npm run build).
#   bash tools/bench/cpu/run-cpu-bench.sh [RUNS] [THREADS]
# ESM-2: a random 35M-shape model and 1,500 random proteins of 50 residues (78,000 tokens), made once in
# $BENCH_DIR (default /tmp/virnucpro-cpu-bench); ours = `virnucpro embed esm2` with default options (auto: onednn
# when libdnnl is installed), PyTorch = tools/bench/esm2/pytorch_esm2_cpu.py, fp32 eager, --threads THREADS
# (default: every core, as ours).
set -euo pipefail
runs=${1:-3}
threads=${2:-$(nproc)}
dir=${BENCH_DIR:-/tmp/virnucpro-cpu-bench}
py=${PYTHON:-python3}
mkdir -p "$dir"
[ -f "$dir/esm2-35m/model.safetensors" ] || "$py" tools/bench/esm2/pytorch_esm2_cpu.py --size 35M --write-model "$dir/esm2-35m"
[ -f "$dir/proteins.fa" ] || "$py" tools/bench/esm2/pytorch_esm2_cpu.py --write-fasta "$dir/proteins.fa" --proteins 1500 --residues 50
seconds() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -n 1; }
ours=() theirs=()
for i in $(seq 1 "$runs"); do
  rm -f "$dir/ours.safetensors"  # embed refuses to overwrite
  ours+=("$(seconds node packages/cli/bin/virnucpro.js embed esm2 --model "$dir/esm2-35m" --input "$dir/proteins.fa" --output "$dir/ours.safetensors" --quiet)")
  theirs+=("$(seconds "$py" tools/bench/esm2/pytorch_esm2_cpu.py --model "$dir/esm2-35m" --fasta "$dir/proteins.fa" --threads "$threads")")
  echo "run $i: virnucpro ${ours[-1]} s, PyTorch ${theirs[-1]} s"
done
node -e '
const [a, b] = [process.argv[1], process.argv[2]].map((s) => s.split(" ").map(Number));
const median = (v) => { const s = [...v].sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const ratios = a.map((x, i) => b[i] / x);
console.log(`median: virnucpro ${median(a)} s, PyTorch ${median(b)} s; speed ratio (PyTorch time / ours, pair by pair) median ${median(ratios).toFixed(2)}x, range ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}x; tokens/s ours ${(78000 / median(a)).toFixed(0)}, PyTorch ${(78000 / median(b)).toFixed(0)} (whole processes)`);
' "${ours[*]}" "${theirs[*]}"
