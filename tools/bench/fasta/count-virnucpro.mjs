// seqkit-stats-like counts with @virnucpro/fasta-stream (built dist):
//   node tools/bench/fasta/count-virnucpro.mjs records|batches <file>
import { readFasta, readFastaBatches } from '@virnucpro/fasta-stream';

const [mode, file] = process.argv.slice(2);
let n = 0;
let sum = 0;
let min = Infinity;
let max = 0;
const count = (r) => {
  n++;
  const len = r.sequence.length;
  sum += len;
  if (len < min) min = len;
  if (len > max) max = len;
};
if (mode === 'batches') {
  for await (const batch of readFastaBatches(file)) for (const r of batch) count(r);
} else {
  for await (const r of readFasta(file)) count(r);
}
console.log(JSON.stringify({ num_seqs: n, sum_len: sum, min_len: min, max_len: max, maxRSS_kB: process.resourceUsage().maxRSS }));
