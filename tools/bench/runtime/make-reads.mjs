#!/usr/bin/env node
// Writes N random DNA reads of LENGTH bp as FASTA to stdout (deterministic), for CLI memory runs:
//   node tools/bench/runtime/make-reads.mjs 100000 300 > /tmp/reads-100k.fa
const count = Number(process.argv[2] ?? 100000);
const length = Number(process.argv[3] ?? 300);
let state = 7;
const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
const lines = [];
for (let i = 0; i < count; i++) {
  let s = '';
  for (let k = 0; k < length; k++) s += 'ACGT'[(next() >>> 16) & 3];
  lines.push(`>read_${i}\n${s}\n`);
  if (lines.length === 4096 || i === count - 1) {
    if (!process.stdout.write(lines.join(''))) await new Promise((r) => process.stdout.once('drain', r));
    lines.length = 0;
  }
}
