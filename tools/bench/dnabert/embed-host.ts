// The host side of `virnucpro embed dnabert` alone: the command's own run (runEmbed: FASTA read, BPE, packing, batches
// two in flight as on cuda, input order restored, the safetensors written) with a model that computes nothing (zero
// vectors of DNABERT-S's 768), so that the figure is what the main thread sustains in front of a GPU. Windows of one
// length cut at random from phage lambda and E. coli 536 (as bench-tokenizer.mjs). Bundled by bundle.sh beside it:
//   bash tools/bench/dnabert/bundle.sh && node /tmp/dnabert-bench/embed-host.mjs [--windows 20000] [--length 150]
//     [--tokenize once|twice|threads]  twice: a model without `tokenized`, so the BPE runs to count and again in the
//                               batch (the command before it carried the ids); threads: the BPE on a BpePool
//     [--threads N]            with --tokenize threads; default min(4, cores - 1)
//     [--early-encoder]        with --tokenize threads: the pool started before each run's clock and handed to runEmbed,
//                               as `embed` starts it while the model loads (otherwise runEmbed starts it)
//     [--bpe FILE]             the BpeTokenizer exported by FILE (an ES module) instead of the current one;
//                               no-bpe.mjs beside this file: no BPE at all (the command's host side less its tokenizing)
//     [--repeats 3]
// Prints one JSON object: median µs per window and tokens/s over the repeats.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { BpePool, BpeTokenizer } from '@virnucpro/dnabert';
import type { Embedder, FloatAllocator } from '@virnucpro/ops';
import { seededRandom } from '@virnucpro/ops/testing';
import { runEmbed } from '../../../packages/cli/src/commands/embed-run.js';

const { values: args } = parseArgs({
  options: {
    windows: { type: 'string', default: '20000' },
    length: { type: 'string', default: '150' },
    tokenize: { type: 'string', default: 'once' },
    bpe: { type: 'string' },
    repeats: { type: 'string', default: '3' },
    threads: { type: 'string' },
    'early-encoder': { type: 'boolean', default: false },
  },
});
if (!['once', 'twice', 'threads'].includes(args.tokenize!)) throw new Error('--tokenize once|twice|threads');
if (args.tokenize === 'threads' && args.bpe) throw new Error('--bpe runs on the main thread only');

const tokenizerJson = 'test-data/dnabert/tokenizer.json';
const tokenizer: Pick<BpeTokenizer, 'encode' | 'tokenCount'> = args.bpe
  ? await (await import(pathToFileURL(resolve(args.bpe)).href)).BpeTokenizer.fromFile(tokenizerJson)
  : await BpeTokenizer.fromFile(tokenizerJson);

const dir = mkdtempSync(join(tmpdir(), 'embed-host-'));
const genomes = ['test-data/lambda_virus.fa', 'test-data/ecoli536_1-30000.fa'].map((file) =>
  readFileSync(file, 'utf8').split('\n').filter((line) => !line.startsWith('>')).join('').trim(),
);
const rand = seededRandom(1);
const length = Number(args.length);
const input = join(dir, 'windows.fa');
const fasta: string[] = [];
for (let i = 0; i < Number(args.windows); i++) {
  const genome = genomes[i % genomes.length];
  const start = Math.floor(rand() * (genome.length - length + 1));
  fasta.push(`>w${i}\n${genome.slice(start, start + length)}\n`);
}
writeFileSync(input, fasta.join(''));

const dim = 768;
// As the models return a batch: one array read back (into one from `allocate` where the caller gives it, as the cuda
// backend's readInto does), a view of it per sequence (a zero vector each, written as the read's copy writes it).
let firstBatchAt: number | undefined;
const embedIds = async (ids: Int32Array[], allocate?: FloatAllocator) => {
  firstBatchAt ??= performance.now();
  const floats = ids.length * dim;
  const all = allocate ? allocate(floats).subarray(0, floats) : new Float32Array(floats);
  all.fill(0);
  return ids.map((_, i) => all.subarray(i * dim, (i + 1) * dim));
};
const startBpePool = () => BpePool.start({ tokenizerPath: tokenizerJson, ...(args.threads ? { threads: Number(args.threads) } : {}) });
if (args['early-encoder'] && args.tokenize !== 'threads') throw new Error('--early-encoder goes with --tokenize threads');

const embedder: Embedder = {
  name: 'null',
  dim,
  tokenCount: (s) => tokenizer.tokenCount(s),
  embed: async (sequences) => embedIds(sequences.map((s) => tokenizer.encode(s))),
  ...(args.tokenize === 'once' ? { tokenized: { encode: (s: string) => tokenizer.encode(s), embed: embedIds } } : {}),
  ...(args.tokenize === 'threads'
    ? {
        tokenized: {
          encode: (s: string) => tokenizer.encode(s),
          embed: embedIds,
          startEncoder: startBpePool,
        },
      }
    : {}),
  dispose() {},
};

const runs: Array<{ seconds: number; tokens: number; windows: number; firstBatchSeconds: number }> = [];
try {
  for (let r = 0; r < Number(args.repeats); r++) {
    const encoder = args['early-encoder'] ? await startBpePool() : undefined;
    const t0 = performance.now();
    firstBatchAt = undefined;
    const summary = await runEmbed({
      embedder,
      compute: { backend: 'cuda', precision: 'bf16' },
      input,
      output: join(dir, 'out.safetensors'),
      tokenBudget: 65536,
      window: 4096,
      metadata: {},
      ...(encoder ? { encoder: Promise.resolve(encoder) } : {}),
    });
    runs.push({ seconds: (performance.now() - t0) / 1000, tokens: summary.tokens, windows: summary.sequences, firstBatchSeconds: ((firstBatchAt ?? t0) - t0) / 1000 });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const median = [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)];
console.log(JSON.stringify({
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
  length,
  tokenize: args.tokenize,
  earlyEncoder: args['early-encoder'],
  ...(args.tokenize === 'threads' ? { threads: args.threads ? Number(args.threads) : 'default' } : {}),
  bpe: args.bpe ?? 'current',
  windows: median.windows,
  tokens: median.tokens,
  seconds: runs.map((r) => +r.seconds.toFixed(2)),
  // From runEmbed's start to the model's first batch: what a GPU waits before it has work.
  firstBatchSeconds: runs.map((r) => +r.firstBatchSeconds.toFixed(3)),
  usPerWindow: +((median.seconds / median.windows) * 1e6).toFixed(1),
  tokensPerSecond: Math.round(median.tokens / median.seconds),
}));
