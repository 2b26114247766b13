#!/usr/bin/env bash
# FASTA/FASTQ reader benchmark: seqkit stats -j 1 vs @virnucpro/fasta-stream vs bionode-fasta, interleaved.
#   tools/bench/fasta/run.sh [reps=9] [scratch=/tmp/fastabench]
# Installs nothing into the repo: seqkit/hyperfine/time via apt if missing, bionode-fasta under /tmp/bionode.
# Needs packages/fasta-stream built (dist). Prints one line per run, then a table of medians.
set -euo pipefail
REPS=${1:-9}
D=${2:-/tmp/fastabench}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT"
mkdir -p "$D"

need=()
command -v seqkit >/dev/null || need+=(seqkit)
command -v hyperfine >/dev/null || need+=(hyperfine)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then apt-get update && apt-get install -y "${need[@]}"; fi
[ -d /tmp/bionode/node_modules/bionode-fasta ] || npm install --prefix /tmp/bionode bionode-fasta

if [ ! -s "$D/ecoli.fa" ]; then
  (cd "$D" && apt-get download bowtie-examples && dpkg-deb -x bowtie-examples_*.deb ex &&
    zcat ex/usr/share/doc/bowtie/examples/genomes/NC_008253.fna.gz > ecoli.fa)
fi
[ -s "$D/reads.fq.gz" ] || node tools/bench/fasta/make-data.mjs "$D/ecoli.fa" "$D"

VNP="node tools/bench/fasta/count-virnucpro.mjs"
BIO="node tools/bench/fasta/count-bionode.mjs /tmp/bionode"
RESULTS="$D/results.tsv"
: > "$RESULTS"
# Wall time from bash's microsecond clock (GNU time's %e has 10 ms steps, too coarse at ~0.1 s); peak RSS from
# GNU time. Both tools run under the same wrapper, so its small overhead is in every figure alike.
measure() { # label input command...
  local label=$1 input=$2; shift 2
  local kb start end
  start=$EPOCHREALTIME
  kb=$( { /usr/bin/time -f '%M' "$@" > "$D/last.out"; } 2>&1 | tail -1)
  end=$EPOCHREALTIME
  printf '%s\t%s\t%s\t%s\n' "$label" "$input" "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }')" "$kb" | tee -a "$RESULTS"
}
for rep in $(seq 1 "$REPS"); do
  for f in genomes.fa reads.fa reads.fa.gz reads.fq reads.fq.gz; do
    measure seqkit "$f" seqkit stats -j 1 "$D/$f"
    measure virnucpro-blocks "$f" $VNP blocks "$D/$f"
    measure virnucpro-blocks-strings "$f" $VNP blocks-strings "$D/$f"
    measure virnucpro-batches "$f" $VNP batches "$D/$f"
    measure virnucpro-records "$f" $VNP records "$D/$f"
    # bionode-fasta takes ~10x longer: three runs are enough for a median.
    # It reads no FASTQ.
    if [[ "$f" == *.fa ]] && [ "$rep" -le 3 ]; then measure bionode-fasta "$f" $BIO "$D/$f"; fi
  done
done

node - "$RESULTS" "$D" <<'EOF'
const { readFileSync, statSync } = require('node:fs');
const [file, dir] = process.argv.slice(2);
const rows = readFileSync(file, 'utf8').trim().split('\n').map((l) => l.split('\t'));
const groups = new Map();
for (const [tool, input, s, kb] of rows) {
  const k = `${input}\t${tool}`;
  if (!groups.has(k)) groups.set(k, { input, tool, s: [], kb: [] });
  groups.get(k).s.push(Number(s));
  groups.get(k).kb.push(Number(kb));
}
const median = (a) => { const b = [...a].sort((x, y) => x - y); const m = b.length >> 1; return b.length % 2 ? b[m] : (b[m - 1] + b[m]) / 2; };
const plainSize = (input) => statSync(`${dir}/${input.replace(/\.gz$/, '')}`).size;
console.log('\n| input | tool | runs | median s | MB/s (plain bytes) | ratio to seqkit (time) | peak RSS MB (max) |');
console.log('|---|---|---|---|---|---|---|');
for (const g of groups.values()) {
  const s = median(g.s);
  const ref = median(groups.get(`${g.input}\tseqkit`).s);
  const mbs = plainSize(g.input) / 1e6 / s;
  console.log(`| ${g.input} | ${g.tool} | ${g.s.length} | ${s.toFixed(3)} | ${mbs.toFixed(0)} | ${(s / ref).toFixed(2)}× | ${(Math.max(...g.kb) / 1024).toFixed(0)} |`);
}
EOF
