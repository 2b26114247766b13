// DNABERT-S speed: tokenizer tokens/s (ours vs @huggingface/tokenizers) and model tokens/s with
// random weights of the real DNABERT-S size (117M: 12 layers, 768, 12 heads, FFN 3072, vocab 4096).
// Prints one JSON object. Runs from source locally and bundled on the GPU machine:
//   bash tools/device/bundle.sh tools/bench/dnabert/bench-dnabert.ts
//   node .bundle/bench-dnabert.mjs --backend webgpu --tokenizer test-data/dnabert/tokenizer.json
// Options: --backend cpu|wasm|webgpu|tensorflow|auto  --tokenizer PATH  --sequences N (default 256)
//   --token-budget N (default 8192)  --lengths 300,500  --layers N --hidden N --heads N --intermediate N
//   --warmup N (batches, default 1)  --tokenizer-sequences N (default 20000)  --tokenizer-repeats N (default 5)  --no-hf
// Tokenizer: median of --tokenizer-repeats passes over the same sequences (ours and HF interleaved per
// pass, so a busy shared machine hits both alike). Model: total tokens/s plus the median of per-batch tokens/s.
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { BpeTokenizer, dnabertSConfig, type DnabertConfig } from '@virnucpro/dnabert';
import { initBackend, type BackendName } from '@virnucpro/ops';
import { randomDna, randomDnabertModel } from './random-dnabert.js';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'auto' },
    tokenizer: { type: 'string', default: 'test-data/dnabert/tokenizer.json' },
    sequences: { type: 'string', default: '256' },
    'token-budget': { type: 'string', default: '8192' },
    lengths: { type: 'string', default: '300,500' },
    layers: { type: 'string' },
    hidden: { type: 'string' },
    heads: { type: 'string' },
    intermediate: { type: 'string' },
    warmup: { type: 'string', default: '1' },
    'tokenizer-sequences': { type: 'string', default: '20000' },
    'tokenizer-repeats': { type: 'string', default: '5' },
    'no-hf': { type: 'boolean', default: false },
  },
});

const lengths = args.lengths!.split(',').map(Number);
const tokenizer = await BpeTokenizer.fromFile(args.tokenizer!);

// 1. Tokenizer throughput (single thread).
async function tokenizerSpeed() {
  const seqs = randomDna(Number(args['tokenizer-sequences']), lengths, 11);
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
    lengths,
    ours,
    huggingfaceTokenizersJs: hfResult,
    speedup: typeof hfResult === 'string' ? null : +(ours.tokensPerSecond / hfResult.tokensPerSecond).toFixed(1),
  };
}

// 2. Model throughput on packed batches of ~token-budget tokens.
async function modelSpeed(backend: BackendName) {
  const config: DnabertConfig = {
    ...dnabertSConfig,
    ...(args.layers ? { numLayers: Number(args.layers) } : {}),
    ...(args.hidden ? { hiddenSize: Number(args.hidden) } : {}),
    ...(args.heads ? { numHeads: Number(args.heads) } : {}),
    ...(args.intermediate ? { intermediateSize: Number(args.intermediate) } : {}),
  };
  const t0 = performance.now();
  const model = randomDnabertModel(config);
  const loadSeconds = (performance.now() - t0) / 1000;
  const tokenized = randomDna(Number(args.sequences), lengths, 23).map((s) => tokenizer.encode(s));
  const budget = Number(args['token-budget']);
  const batches: Int32Array[][] = [];
  let current: Int32Array[] = [];
  let used = 0;
  for (const t of tokenized) {
    if (current.length && used + t.length > budget) {
      batches.push(current);
      current = [];
      used = 0;
    }
    current.push(t);
    used += t.length;
  }
  if (current.length) batches.push(current);
  const warmup = Math.min(Number(args.warmup), batches.length - 1);
  for (const b of batches.slice(0, warmup)) await model.meanEmbeddings(b);
  const timed = batches.slice(warmup);
  const start = performance.now();
  let tokens = 0;
  let sequences = 0;
  const perBatch: number[] = [];
  for (const b of timed) {
    const tb = performance.now();
    await model.meanEmbeddings(b);
    const batchTokens = b.reduce((a, t) => a + t.length, 0);
    perBatch.push(batchTokens / ((performance.now() - tb) / 1000));
    tokens += batchTokens;
    sequences += b.length;
  }
  perBatch.sort((a, b) => a - b);
  const medianBatch = perBatch.length % 2 ? perBatch[(perBatch.length - 1) / 2] : (perBatch[perBatch.length / 2 - 1] + perBatch[perBatch.length / 2]) / 2;
  const seconds = (performance.now() - start) / 1000;
  const memory = tf.memory();
  model.dispose();
  return {
    config,
    parameters: config.vocabSize * config.hiddenSize + 2 * config.hiddenSize + 2 * config.hiddenSize +
      config.numLayers * (3 * config.hiddenSize * (config.hiddenSize + 1) + config.hiddenSize * (config.hiddenSize + 1) + 4 * config.hiddenSize +
        2 * config.intermediateSize * config.hiddenSize + config.hiddenSize * (config.intermediateSize + 1)),
    weightSetupSeconds: +loadSeconds.toFixed(2),
    tokenBudget: budget,
    batches: timed.length,
    warmupBatches: warmup,
    sequences,
    tokens,
    seconds: +seconds.toFixed(3),
    tokensPerSecond: Math.round(tokens / seconds),
    batchTokensPerSecondMedian: +medianBatch.toFixed(1),
    batchTokensPerSecond: perBatch.map((x) => +x.toFixed(1)),
    sequencesPerSecond: +(sequences / seconds).toFixed(2),
    peakTensorBytes: memory.numBytes,
  };
}

const backend = await initBackend(args.backend as BackendName | 'auto');
const tok = await tokenizerSpeed();
const model = await modelSpeed(backend);
console.log(JSON.stringify({
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
  backend,
  tokenizer: tok,
  model,
  tokenizerToModelRatio: +(tok.ours.tokensPerSecond / model.tokensPerSecond).toFixed(1),
  tokenizerToModelRatioMedians: +(tok.ours.tokensPerSecond / model.batchTokensPerSecondMedian).toFixed(1),
}, null, 1));
