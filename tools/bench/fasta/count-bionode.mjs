// The same counts with bionode-fasta (installed outside the repo):
//   node tools/bench/fasta/count-bionode.mjs <dir containing node_modules/bionode-fasta> <file>
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [dir, file] = process.argv.slice(2);
const fasta = createRequire(join(dir, 'package.json'))('bionode-fasta');
let n = 0;
let sum = 0;
let min = Infinity;
let max = 0;
fasta
  .obj(file)
  .on('data', (r) => {
    n++;
    const len = r.seq.length;
    sum += len;
    if (len < min) min = len;
    if (len > max) max = len;
  })
  .on('end', () => console.log(JSON.stringify({ num_seqs: n, sum_len: sum, min_len: min, max_len: max, maxRSS_kB: process.resourceUsage().maxRSS })));
