// DNABERT-S speed: tokenizer tokens/s (ours vs @huggingface/tokenizers) and model tokens/s with
// random weights of the real DNABERT-S size (117M: 12 layers, 768, 12 heads, FFN 3072, vocab 4096).
// Prints one JSON object (each run also on stderr as it finishes). Runs from source locally and bundled on the GPU machine:
//   bash tools/device/bundle.sh tools/bench/dnabert/bench-dnabert.ts
//   node .bundle/bench-dnabert.mjs --backend cuda --precision fp16 --fasta test-data/lambda_virus.fa --length-sets 150:300:500 --budgets 8192,16384,32768
// Options: --backend cpu|wasm|webgpu|tensorflow|cuda|auto  --precision fp32|fp16|bf16 (cuda)  --tokenizer PATH
//   --sequences N (per length set, default 256)  --budgets N,N (token budgets, default 8192)  --length-sets 300,500:150
//   (bp per sequence, sets separated by ':'; --lengths is the one-set form)  --fasta FILE (windows of a real genome
//   instead of random DNA: BPE token counts of real DNA differ from random DNA's)  --layers/--hidden/--heads/--intermediate N
//   --warmup N (batches, default 1)  --tokenizer-sequences N (default 20000; 0 skips the tokenizer part)
//   --tokenizer-repeats N (default 5)  --no-hf  --means-out FILE / --means-ref FILE (fp16/bf16 means against fp32)
//   --lengths-out FILE (token counts per set, JSON, for tools/bench/dnabert/pytorch_dnabert.py)  --profile (cuda)
//   --in-flight N (batches in flight at once; default as the tools run: 2 on cuda, else 1; 1 = each batch awaited)
// Tokenizer: median of --tokenizer-repeats passes over the same sequences (ours and HF interleaved per
// pass, so a busy shared machine hits both alike). Model: packed batches (no padding), tokens/s and MFU per run.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { BpeTokenizer, calibrateDnabert, dnabertSConfig, type DnabertConfig } from '@virnucpro/dnabert';
// Registers the cuda backend (a bundle cannot load it by name at run time).
import { planCompute, startCompute, type BackendChoice, type BackendName, type Precision } from '@virnucpro/compute';
import { packArray } from '@virnucpro/packer';
import { benchBatchesInFlight, benchmarkFigures, checkMeans, profileForward, timePackedBatches } from '../gpu/model-bench-helpers.js';
import { randomDna, randomDnabertModel, seededUniform } from './random-dnabert.js';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'auto' },
    precision: { type: 'string' },
    tokenizer: { type: 'string', default: 'test-data/dnabert/tokenizer.json' },
    sequences: { type: 'string', default: '256' },
    'token-budget': { type: 'string', default: '8192' },
    budgets: { type: 'string' },
    lengths: { type: 'string', default: '300,500' },
    'length-sets': { type: 'string' },
    fasta: { type: 'string' },
    layers: { type: 'string' },
    hidden: { type: 'string' },
    heads: { type: 'string' },
    intermediate: { type: 'string' },
    warmup: { type: 'string', default: '1' },
    'tokenizer-sequences': { type: 'string', default: '20000' },
    'tokenizer-repeats': { type: 'string', default: '5' },
    'no-hf': { type: 'boolean', default: false },
    'means-out': { type: 'string' },
    'means-ref': { type: 'string' },
    'lengths-out': { type: 'string' },
    profile: { type: 'boolean', default: false },
    'in-flight': { type: 'string' },
  },
});

const tokenizerLengths = (args['length-sets'] ?? args.lengths!).split(/[:,]/).map(Number);
const tokenizer = await BpeTokenizer.fromFile(args.tokenizer!);

// 1. Tokenizer throughput (single thread).
async function tokenizerSpeed() {
  const seqs = randomDna(Number(args['tokenizer-sequences']), tokenizerLengths, 11);
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const pass = (encode: (s: string) => number) => {
    const t0 = performance.now();
    let tokens = 0;
    for (const s of seqs) tokens += encode(s);
    return { tokens, seconds: (performance.now() - t0) / 1000 };
  };
  const encoders: Record<string, (s: string) => number> = { ours: (s) => tokenizer.encode(s).length };
  let hf: string | null = null;
  if (!args['no-hf']) {
    try {
      const { Tokenizer } = await import('@huggingface/tokenizers');
      const { readFile } = await import('node:fs/promises');
      const t = new Tokenizer(JSON.parse(await readFile(args.tokenizer!, 'utf8')), {});
      encoders.hf = (s) => t.encode(s).ids.length;
    } catch (err) {
      hf = `unavailable: ${(err as Error).message}`;
    }
  } else hf = 'skipped';
  for (const encode of Object.values(encoders)) for (const s of seqs.slice(0, 500)) encode(s); // warm-up (JIT)
  const runs: Record<string, { tokens: number; seconds: number }[]> = {};
  for (let r = 0; r < Math.max(1, Number(args['tokenizer-repeats'])); r++) {
    for (const [name, encode] of Object.entries(encoders)) (runs[name] ??= []).push(pass(encode));
  }
  const summary = (name: string) => {
    const rs = runs[name];
    const rates = rs.map((r) => r.tokens / r.seconds);
    const rate = median(rates);
    return {
      tokens: rs[0].tokens,
      repeats: rs.length,
      seconds: rs.map((r) => +r.seconds.toFixed(3)),
      tokensPerSecond: Math.round(rate),
      tokensPerSecondMin: Math.round(Math.min(...rates)),
      tokensPerSecondMax: Math.round(Math.max(...rates)),
      sequencesPerSecond: Math.round((rate * seqs.length) / rs[0].tokens),
    };
  };
  const ours = summary('ours');
  const hfResult = encoders.hf ? summary('hf') : hf!;
  return {
    sequences: seqs.length,
    lengths: tokenizerLengths,
    ours,
    huggingfaceTokenizersJs: hfResult,
    speedup: typeof hfResult === 'string' ? null : +(ours.tokensPerSecond / hfResult.tokensPerSecond).toFixed(1),
  };
}

/** count sequences with lengths cycled from `lengths`: windows of the --fasta genome (either strand) or random ACGT. */
function dnaSequences(count: number, lengths: number[], seed: number): string[] {
  if (!args.fasta) return randomDna(count, lengths, seed);
  const genome = readFileSync(args.fasta, 'utf8').split('\n').filter((l) => !l.startsWith('>')).join('').toUpperCase();
  const complement: Record<string, string> = { A: 'T', C: 'G', G: 'C', T: 'A' };
  const rand = seededUniform(seed);
  return Array.from({ length: count }, (_, i) => {
    const len = lengths[i % lengths.length];
    const start = Math.floor(((rand() + 1) / 2) * (genome.length - len));
    const window = genome.slice(start, start + len);
    return rand() < 0 ? window : [...window].reverse().map((c) => complement[c] ?? 'N').join('');
  });
}

// 2. Model throughput on packed batches of each token budget, per length set.
const config: DnabertConfig = {
  ...dnabertSConfig,
  ...(args.layers ? { numLayers: Number(args.layers) } : {}),
  ...(args.hidden ? { hiddenSize: Number(args.hidden) } : {}),
  ...(args.heads ? { numHeads: Number(args.heads) } : {}),
  ...(args.intermediate ? { intermediateSize: Number(args.intermediate) } : {}),
};
const { hiddenSize: d, intermediateSize: I, numLayers } = config;
/** Weights that multiply every token (embeddings excluded): fused QKV, attention output, gated GeGLU input, output. */
const matmulParameters = numLayers * (3 * d * d + d * d + 2 * I * d + I * d);
const parameters = config.vocabSize * d + 2 * d + 2 * d + numLayers * (3 * d * (d + 1) + d * (d + 1) + 4 * d + 2 * I * d + d * (I + 1));

async function modelSpeed(backend: BackendName) {
  const inFlight = benchBatchesInFlight(backend, args['in-flight']);
  const t0 = performance.now();
  const model = randomDnabertModel(config);
  await model.meanEmbeddings([tokenizer.encode('ACGTACGTAC')]); // materialise weights, compile kernels/shaders
  await calibrateDnabert(model, tokenizer); // as loadDnabertEmbedder does (fp8 only)
  const setupSeconds = (performance.now() - t0) / 1000;
  const budgets = (args.budgets ?? args['token-budget']!).split(',').map(Number);
  const sets = (args['length-sets'] ?? args.lengths!).split(':').map((set) => set.split(',').map(Number));
  const runs = [];
  const tokenLengths: Record<string, number[]> = {};
  for (const [setIndex, setLengths] of sets.entries()) {
    const tokenized = dnaSequences(Number(args.sequences), setLengths, 23 + setIndex).map((s) => tokenizer.encode(s));
    tokenLengths[setLengths.join(',')] = tokenized.map((t) => t.length);
    for (const budget of budgets) {
      const run = await timePackedBatches(model, tokenized, budget, Number(args.warmup), { matmulParameters, hiddenSize: d, layers: numLayers }, inFlight);
      runs.push({ basePairs: setLengths, meanTokens: +(run.tokens / run.sequences).toFixed(1), ...run, sequencesPerSecond: Math.round(run.sequences / run.seconds) });
      console.error(JSON.stringify(runs[runs.length - 1]));
    }
  }
  if (args['lengths-out']) writeFileSync(args['lengths-out'], JSON.stringify(tokenLengths));
  const probe = dnaSequences(32, [150, 300, 500], 99).map((s) => tokenizer.encode(s));
  const meansCheck = await checkMeans(model, probe, args['means-out'], args['means-ref']);
  const profile = args.profile
    ? await profileForward(model, packArray(dnaSequences(4 * budgets[0], sets[0], 5).map((s, index) => {
        const t = tokenizer.encode(s);
        return { index, tokens: t.length, value: t };
      }), { tokenBudget: budgets[0] })[0].items.map((i) => i.value), backend)
    : undefined;
  const figures = benchmarkFigures(setupSeconds, runs, meansCheck, profile);
  model.dispose();
  return { config, parameters, ...figures };
}

const backend = (await startCompute((await planCompute({ backend: args.backend as BackendChoice, ...(args.precision ? { precision: args.precision as Precision } : {}) })).settings)).backend;
const tok = Number(args['tokenizer-sequences']) > 0 ? await tokenizerSpeed() : undefined;
const model = await modelSpeed(backend);
console.log(JSON.stringify({
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
  backend,
  precision: args.precision ?? (backend === 'cuda' ? 'fp16' : 'fp32'),
  ...(tok ? { tokenizer: tok, tokenizerToModelRatio: +(tok.ours.tokensPerSecond / model.tokensPerSecond).toFixed(1) } : {}),
  model,
}, null, 1));
