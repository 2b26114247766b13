// DNABERT-S tokenizer throughput, single thread: windows/s and µs per window of `BpeTokenizer.encode` over random
// windows of 150 / 300 / 500 bp cut from real genomes (phage lambda and E. coli 536's first 30 kb), with the real
// tokenizer (test-data/dnabert/tokenizer.json). Run after `npm run build` (it imports the built @virnucpro/dnabert):
//   node tools/bench/dnabert/bench-tokenizer.mjs [--windows 3000] [--lengths 150,300,500] [--passes 5]
//     [--compare FILE]…   also time the BpeTokenizer exported by each FILE (an ES module, e.g. an esbuild bundle of an
//                         older bpe-tokenizer.ts), interleaved pass by pass with the current one, after checking that
//                         it gives the current one's ids for every window
// Prints one JSON object: per length the median of --passes passes (min–max), warm (each tokenizer encodes every
// window once before timing).
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { basename, resolve } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BpeTokenizer } from '@virnucpro/dnabert';
import { seededRandom } from '@virnucpro/ops/testing';

const { values: args } = parseArgs({
  options: {
    windows: { type: 'string', default: '3000' },
    lengths: { type: 'string', default: '150,300,500' },
    passes: { type: 'string', default: '5' },
    compare: { type: 'string', multiple: true, default: [] },
    seed: { type: 'string', default: '1' },
  },
});

const root = fileURLToPath(new URL('../../../', import.meta.url));
const genomes = ['test-data/lambda_virus.fa', 'test-data/ecoli536_1-30000.fa'].map((file) =>
  readFileSync(`${root}${file}`, 'utf8').split('\n').filter((line) => !line.startsWith('>')).join('').trim(),
);
const tokenizerJson = `${root}test-data/dnabert/tokenizer.json`;

/** `count` windows of `length` bp at random places of the two genomes (alternating). */
function windows(count, length, rand) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const genome = genomes[i % genomes.length];
    const start = Math.floor(rand() * (genome.length - length + 1));
    // A flat copy (as a FASTA reader gives), not a slice that keeps the genome's storage.
    out.push(genome.slice(start, start + length).split('').join(''));
  }
  return out;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const current = await BpeTokenizer.fromFile(tokenizerJson);
const tokenizers = { current };
for (const file of args.compare) {
  const { BpeTokenizer: Other } = await import(pathToFileURL(resolve(file)).href);
  tokenizers[basename(file)] = await Other.fromFile(tokenizerJson);
}

const rand = seededRandom(Number(args.seed));
const results = {};
for (const length of args.lengths.split(',').map(Number)) {
  const seqs = windows(Number(args.windows), length, rand);
  let tokens = 0;
  for (const s of seqs) tokens += current.encode(s).length;
  for (const [name, other] of Object.entries(tokenizers)) {
    const differs = seqs.find((s) => current.encode(s).join() !== other.encode(s).join());
    if (differs !== undefined) throw new Error(`${name} and the current tokenizer give different ids for ${differs}`);
  }
  for (const t of Object.values(tokenizers)) for (const s of seqs) t.encode(s); // warm-up (JIT)
  const seconds = Object.fromEntries(Object.keys(tokenizers).map((name) => [name, []]));
  for (let pass = 0; pass < Number(args.passes); pass++) {
    for (const [name, t] of Object.entries(tokenizers)) {
      const t0 = performance.now();
      for (const s of seqs) t.encode(s);
      seconds[name].push((performance.now() - t0) / 1000);
    }
  }
  results[`${length}bp`] = {
    windows: seqs.length,
    tokensPerWindow: +(tokens / seqs.length).toFixed(2),
    ...Object.fromEntries(Object.entries(seconds).map(([name, s]) => [name, {
      usPerWindow: +((median(s) / seqs.length) * 1e6).toFixed(2),
      usPerWindowMinMax: [Math.min(...s), Math.max(...s)].map((x) => +((x / seqs.length) * 1e6).toFixed(2)),
      windowsPerSecond: Math.round(seqs.length / median(s)),
      tokensPerSecond: Math.round(tokens / median(s)),
    }])),
  };
}

console.log(JSON.stringify({
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
  passes: Number(args.passes),
  results,
}, null, 1));
