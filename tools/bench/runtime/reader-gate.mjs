#!/usr/bin/env node
// What the reader's credit costs a GPU: `runEmbedding` over a `serialEmbedder` with two batches in flight (as
// `virnucpro embed` on cuda) whose "GPU" is a clock — each batch takes GPU_MS on it, queued behind the one before —
// and a reader that spends ITEM_US of CPU per record (reading, checking, tokenising), 36–44 tokens a record (150-bp
// windows' BPE), 64K-token batches, windows of 4,096 records. Prints how long the run took and how busy the "GPU" was,
// for serialEmbedder's `waitingItems` off (0) and set to the window. Uses the built runtime (packages/runtime/dist).
//   node tools/bench/runtime/reader-gate.mjs [--records 150000] [--gpu-ms 26] [--item-us 6]
import { parseArgs } from 'node:util';
import { runEmbedding, serialEmbedder } from '../../../packages/runtime/dist/index.js';

const { values: args } = parseArgs({ options: { records: { type: 'string', default: '150000' }, 'gpu-ms': { type: 'string', default: '26' }, 'item-us': { type: 'string', default: '6' } } });
const records = Number(args.records);
const gpuMs = Number(args['gpu-ms']);
const itemUs = Number(args['item-us']);
const window = 4096;
const tokenBudget = 65536;

async function* items() {
  for (let i = 0; i < records; i++) {
    const start = performance.now();
    while ((performance.now() - start) * 1000 < itemUs) {} // the host's work on this record
    if (i % 256 === 0) await new Promise((resolve) => setImmediate(resolve)); // a chunk's I/O
    yield { id: String(i), tokens: 36 + (i % 9) };
  }
}

async function run(waitingItems) {
  let gpuFreeAt = 0;
  let gpuBusy = 0;
  const pool = serialEmbedder(async (batch) => {
    await new Promise((resolve) => setImmediate(resolve)); // as embed's model call starts
    gpuFreeAt = Math.max(performance.now(), gpuFreeAt) + gpuMs; // queued behind the batch before, as on a stream
    gpuBusy += gpuMs;
    while (performance.now() < gpuFreeAt) await new Promise((resolve) => setTimeout(resolve, 1)); // polled, as whenDone
    return batch.items.map(() => new Float32Array(1));
  }, { concurrent: 2, waitingItems });
  const started = performance.now();
  let delivered = 0;
  for await (const _ of runEmbedding({ items: items(), pack: { tokenBudget, window, firstWindowTokens: 2 * tokenBudget, tokenCount: (item) => item.tokens }, pool, maxReadAhead: Infinity })) delivered++;
  const seconds = (performance.now() - started) / 1000;
  return { waitingItems, delivered, seconds: +seconds.toFixed(2), gpuBusy: +(gpuBusy / 1000 / seconds).toFixed(3) };
}

const results = [];
for (const waitingItems of [0, window, 0, window]) results.push(await run(waitingItems));
console.log(JSON.stringify({ date: new Date().toISOString(), records, gpuMs, itemUs, results }));
