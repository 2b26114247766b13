// ESM-2 throughput (tokens/s) with random weights at a released size, on packed batches of about
// --token-budget tokens. Prints one JSON object. Runs from source here and bundled on the GPU machine:
//   bash tools/device/bundle.sh tools/bench/esm2/bench-esm2.ts
//   node .bundle/bench-esm2.mjs --backend webgpu --size 3B
// Options: --backend cpu|wasm|webgpu|tensorflow|auto  --size 8M|35M|150M|650M|3B|15B
//   --token-budget N (default 4096)  --sequences N (default 64)  --lengths 101,167 (protein lengths:
//   VirNucPro's 300/500 bp chunks give ≤ 100/166 residues + BOS/EOS)  --warmup N (batches, default 1)
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { esm2Architectures, esm2Defaults, Esm2Model, tokenizeProtein, type Esm2Config } from '@virnucpro/esm2';
import { initBackend, type BackendName } from '@virnucpro/ops';
import { packArray } from '@virnucpro/packer';
import { esm2Parameters, randomEsm2Weights, randomProteins } from './random-esm2.js';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'auto' },
    size: { type: 'string', default: '8M' },
    'token-budget': { type: 'string', default: '4096' },
    sequences: { type: 'string', default: '64' },
    lengths: { type: 'string', default: '99,165' },
    warmup: { type: 'string', default: '1' },
  },
});

const archName = Object.keys(esm2Architectures).find((n) => n.includes(`_${args.size}_`));
if (!archName) throw new Error(`--size ${args.size}: expected one of 8M, 35M, 150M, 650M, 3B, 15B`);
const arch = esm2Architectures[archName];
const config: Esm2Config = { ...esm2Defaults, ...arch, ffnDim: 4 * arch.embedDim, name: `${archName} (random weights)` };

const backend = await initBackend(args.backend as BackendName | 'auto');
const t0 = performance.now();
const model = new Esm2Model(config, randomEsm2Weights(config));
await model.meanEmbeddings([tokenizeProtein('MKV')]); // materialise weights, compile shaders
const setupSeconds = (performance.now() - t0) / 1000;

const budget = Number(args['token-budget']);
const tokens = randomProteins(Number(args.sequences), args.lengths!.split(',').map(Number)).map((s) => tokenizeProtein(s));
const batches = packArray(tokens.map((t, index) => ({ index, tokens: t.length, value: t })), { tokenBudget: budget }).map((b) =>
  b.items.map((item) => item.value),
);
const warmup = Math.min(Number(args.warmup), batches.length - 1);
for (const b of batches.slice(0, warmup)) await model.meanEmbeddings(b);
const timed = batches.slice(warmup);
const start = performance.now();
let tokenCount = 0;
let sequences = 0;
const perBatch: number[] = [];
for (const b of timed) {
  const bs = performance.now();
  await model.meanEmbeddings(b);
  perBatch.push(+((performance.now() - bs) / 1000).toFixed(3));
  tokenCount += b.reduce((a, t) => a + t.length, 0);
  sequences += b.length;
}
const seconds = (performance.now() - start) / 1000;
const parameters = esm2Parameters(config);
const result = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
  backend,
  model: archName,
  parameters,
  setupSeconds: +setupSeconds.toFixed(2),
  tokenBudget: budget,
  batches: timed.length,
  warmupBatches: warmup,
  sequences,
  tokens: tokenCount,
  seconds: +seconds.toFixed(3),
  perBatchSeconds: perBatch,
  tokensPerSecond: Math.round(tokenCount / seconds),
  sequencesPerSecond: +(sequences / seconds).toFixed(2),
  // 2 FLOP per parameter per token for the matmuls; attention adds a little on top.
  approxTflops: +((2 * parameters * tokenCount) / seconds / 1e12).toFixed(2),
  tensorBytes: tf.memory().numBytes,
};
model.dispose();
console.log(JSON.stringify(result, null, 1));
