// DNABERT-S speed: tokenizer tokens/s (ours vs @huggingface/tokenizers) and model tokens/s with
// random weights of the real DNABERT-S size (117M: 12 layers, 768, 12 heads, FFN 3072, vocab 4096).
// Prints one JSON object. Runs from source locally and bundled on the GPU machine:
//   bash tools/device/bundle.sh tools/bench/dnabert/bench-dnabert.ts
//   node .bundle/bench-dnabert.mjs --backend webgpu --tokenizer test-data/dnabert/tokenizer.json
// Options: --backend cpu|wasm|webgpu|tensorflow|auto  --tokenizer PATH  --sequences N (default 256)
//   --token-budget N (default 8192)  --lengths 300,500  --layers N --hidden N --heads N --intermediate N
//   --warmup N (batches, default 1)  --tokenizer-sequences N (default 20000)  --no-hf
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
    'no-hf': { type: 'boolean', default: false },
  },
});

const lengths = args.lengths!.split(',').map(Number);
const tokenizer = await BpeTokenizer.fromFile(args.tokenizer!);

// 1. Tokenizer throughput (single thread).
async function tokenizerSpeed() {
  const seqs = randomDna(Number(args['tokenizer-sequences']), lengths, 11);
  const time = (encode: (s: string) => number) => {
    for (const s of seqs.slice(0, 500)) encode(s); // warm-up (JIT)
    const t0 = performance.now();
    let tokens = 0;
    for (const s of seqs) tokens += encode(s);
    const seconds = (performance.now() - t0) / 1000;
    return { tokens, seconds: +seconds.toFixed(3), tokensPerSecond: Math.round(tokens / seconds), sequencesPerSecond: Math.round(seqs.length / seconds) };
  };
  const ours = time((s) => tokenizer.encode(s).length);
  let hf: ReturnType<typeof time> | string = 'skipped';
  if (!args['no-hf']) {
    try {
      const { Tokenizer } = await import('@huggingface/tokenizers');
      const { readFile } = await import('node:fs/promises');
      const t = new Tokenizer(JSON.parse(await readFile(args.tokenizer!, 'utf8')), {});
      hf = time((s) => t.encode(s).ids.length);
    } catch (err) {
      hf = `unavailable: ${(err as Error).message}`;
    }
  }
  return { sequences: seqs.length, lengths, ours, huggingfaceTokenizersJs: hf, speedup: typeof hf === 'string' ? null : +(ours.tokensPerSecond / hf.tokensPerSecond).toFixed(1) };
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
  for (const b of timed) {
    await model.meanEmbeddings(b);
    tokens += b.reduce((a, t) => a + t.length, 0);
    sequences += b.length;
  }
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
}, null, 1));
