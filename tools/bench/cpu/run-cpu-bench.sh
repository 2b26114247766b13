#!/usr/bin/env bash
# The CPU path against PyTorch on the same cores, whole processes, runs alternated (ours, PyTorch, ours, ...) so a
# busy machine slows both alike; prints each run (wall, CPU seconds = user + system, peak RSS) and the medians and
# ratios. Needs python3 with torch (Debian's python3-torch is enough; DNABERT-S also `pip install tokenizers`) and
# a built checkout (npm run build).
#   bash tools/bench/cpu/run-cpu-bench.sh [RUNS] [THREADS] [esm2|dnabert]
# Ours = `virnucpro embed MODEL` with default options (auto: onednn when libdnnl is installed, every core);
# PyTorch = fp32 eager, length-sorted padded batches of <= 4,096 tokens, --threads THREADS (default: every core).
# Inputs are made once in $BENCH_DIR (default /tmp/virnucpro-cpu-bench):
#   esm2:    a random 35M-shape model, 1,500 random proteins of 50 residues (78,000 tokens);
#            PyTorch = tools/bench/esm2/pytorch_esm2_cpu.py.
#   dnabert: a random model of DNABERT-S's full size (117M; tools/make-demo-models.mjs, real tokenizer), 400 random
#            300-bp sequences (~26,500 tokens); PyTorch = tools/bench/dnabert/pytorch_dnabert.py --model --fasta.
set -euo pipefail
runs=${1:-3}
threads=${2:-$(nproc)}
model=${3:-esm2}
dir=${BENCH_DIR:-/tmp/virnucpro-cpu-bench}
py=${PYTHON:-python3}
mkdir -p "$dir"
case "$model" in
  esm2)
    [ -f "$dir/esm2-35m/model.safetensors" ] || "$py" tools/bench/esm2/pytorch_esm2_cpu.py --size 35M --write-model "$dir/esm2-35m"
    [ -f "$dir/proteins.fa" ] || "$py" tools/bench/esm2/pytorch_esm2_cpu.py --write-fasta "$dir/proteins.fa" --proteins 1500 --residues 50
    ours_cmd=(node packages/cli/bin/virnucpro.js embed esm2 --model "$dir/esm2-35m" --input "$dir/proteins.fa" --output "$dir/ours.safetensors" --quiet)
    theirs_cmd=("$py" tools/bench/esm2/pytorch_esm2_cpu.py --model "$dir/esm2-35m" --fasta "$dir/proteins.fa" --threads "$threads")
    ;;
  dnabert)
    weights="$dir/dnabert-full/dnabert-s-demo"
    [ -f "$weights/model.safetensors" ] || node tools/make-demo-models.mjs "$dir/dnabert-full" --dnabert 12,768,12,3072
    [ -f "$dir/dna.fa" ] || "$py" tools/bench/dnabert/pytorch_dnabert.py --write-fasta "$dir/dna.fa" --sequences 400 --length 300
    ours_cmd=(node packages/cli/bin/virnucpro.js embed dnabert --model "$weights" --input "$dir/dna.fa" --output "$dir/ours.safetensors" --quiet)
    theirs_cmd=("$py" tools/bench/dnabert/pytorch_dnabert.py --device cpu --dtype float32 --model "$weights" --fasta "$dir/dna.fa" --threads "$threads")
    ;;
  *) echo "unknown model '$model' (esm2 or dnabert)" >&2; exit 2 ;;
esac
# "wall cpu peak-MiB" of one whole process; its own output goes to $dir/last.log.
measure() { /usr/bin/time -f '%e %U %S %M' -o "$dir/time.txt" "$@" >"$dir/last.log" 2>&1 || { cat "$dir/last.log" >&2; exit 1; }; awk '{ printf "%s %.2f %.0f\n", $1, $2 + $3, $4 / 1024 }' "$dir/time.txt"; }
ours=() theirs=()
for i in $(seq 1 "$runs"); do
  rm -f "$dir/ours.safetensors"  # embed refuses to overwrite
  ours+=("$(measure "${ours_cmd[@]}")")
  theirs+=("$(measure "${theirs_cmd[@]}")")
  read -r ow oc om <<<"${ours[-1]}"; read -r tw tc tm <<<"${theirs[-1]}"
  echo "$model run $i ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1 /proc/loadavg)): virnucpro ${ow} s wall, ${oc} CPU s, ${om} MiB; PyTorch ${tw} s wall, ${tc} CPU s, ${tm} MiB"
done
node -e '
const parse = (s) => s.split("|").map((r) => r.split(" ").map(Number));
const [a, b] = [parse(process.argv[1]), parse(process.argv[2])];
const median = (v) => { const s = [...v].sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const col = (rows, k) => rows.map((r) => r[k]);
const ratios = (k) => a.map((r, i) => b[i][k] / r[k]);
const wall = ratios(0), cpu = ratios(1);
console.log(`median: virnucpro ${median(col(a, 0))} s wall, ${median(col(a, 1))} CPU s, ${median(col(a, 2))} MiB; ` +
  `PyTorch ${median(col(b, 0))} s wall, ${median(col(b, 1))} CPU s, ${median(col(b, 2))} MiB`);
console.log(`speed ratio (PyTorch / ours, pair by pair): wall median ${median(wall).toFixed(2)}x (range ${Math.min(...wall).toFixed(2)}-${Math.max(...wall).toFixed(2)}x), ` +
  `CPU seconds median ${median(cpu).toFixed(2)}x (range ${Math.min(...cpu).toFixed(2)}-${Math.max(...cpu).toFixed(2)}x); ` +
  `cores busy (CPU s / wall, median) ours ${median(a.map((r) => r[1] / r[0])).toFixed(2)}, PyTorch ${median(b.map((r) => r[1] / r[0])).toFixed(2)}`);
' "$(IFS='|'; echo "${ours[*]}")" "$(IFS='|'; echo "${theirs[*]}")"
