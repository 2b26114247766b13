// seqkit-stats-like counts (records, total/min/max length) with @virnucpro/fasta-stream (built dist):
//   node tools/bench/fasta/count-virnucpro.mjs blocks|blocks-strings|batches|records <file>
// blocks:         readFastaBlocks, lengths from block.sequenceLength (no strings made)
// blocks-strings: readFastaBlocks, every sequence made into a string (block.sequence(i))
// batches:        readFastaBatches (arrays of { id, description, sequence })
// records:        readFasta (one record per await)
import { readFasta, readFastaBatches, readFastaBlocks } from '@virnucpro/fasta-stream';

const [mode, file] = process.argv.slice(2);
let n = 0;
let sum = 0;
let min = Infinity;
let max = 0;
const count = (len) => {
  n++;
  sum += len;
  if (len < min) min = len;
  if (len > max) max = len;
};
if (mode === 'blocks') {
  for await (const block of readFastaBlocks(file)) for (let i = 0; i < block.length; i++) count(block.sequenceLength(i));
} else if (mode === 'blocks-strings') {
  for await (const block of readFastaBlocks(file)) for (let i = 0; i < block.length; i++) count(block.sequence(i).length);
} else if (mode === 'batches') {
  for await (const batch of readFastaBatches(file)) for (const r of batch) count(r.sequence.length);
} else if (mode === 'records') {
  for await (const r of readFasta(file)) count(r.sequence.length);
} else {
  throw new Error(`unknown mode ${mode}`);
}
console.log(JSON.stringify({ num_seqs: n, sum_len: sum, min_len: min, max_len: max, maxRSS_kB: process.resourceUsage().maxRSS }));
