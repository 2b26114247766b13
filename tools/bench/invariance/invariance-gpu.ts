// The batch-invariance rule (docs/architecture.md) on the cuda backend in one precision: the property tests CI runs
// on cpu/wasm/onednn, plus the shapes that matter on a GPU — every Vnp kernel on random shapes (odd heads and
// sizes) and, at the real models' widths, batches of thousands of rows, where cuBLASLt's heuristic would pick
// another GEMM algorithm or split K than for one sequence alone; then whole ESM-2 and DNABERT-S forwards on random
// odd shapes and at full width (2 layers). Each sequence alone vs full batches, reversed, rotated, other neighbours.
//   bash tools/device/bundle.sh tools/bench/invariance/invariance-gpu.ts
//   node .bundle/invariance-gpu.mjs --precision fp32|fp16|bf16|fp8 [--seeds 3] [--parts kernels,wide,models,full]
//   (tools/device/run-invariance-gpu.sh: all four precisions; on an H100 a precision takes ~4 minutes, mostly NVRTC
//   compiling kernels for each random shape)
// Prints one line per case and "N passed, M failed"; exits 1 on any failure.
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { startCompute, type Precision } from '@virnucpro/compute';
import { DnabertModel, randomDnabertWeights, type DnabertConfig } from '@virnucpro/dnabert';
import { calibrateEsm2, Esm2Model, randomEsm2Weights, tokenizeProtein, type Esm2Config } from '@virnucpro/esm2';
import { packedLayout } from '@virnucpro/ops';
import {
  checkKernelInvariance, describeBatchDependence, findBatchDependence, randomInt, randomLengths, randomModelShape, rowsAndMeansPerItem, seededRandom,
} from '@virnucpro/ops/testing';
import type { CudaBackend } from '@virnucpro/tfjs-backend-cuda';

const { values: args } = parseArgs({
  options: { precision: { type: 'string', default: 'fp32' }, seeds: { type: 'string', default: '3' }, parts: { type: 'string', default: 'kernels,wide,models,full' } },
});
// --parts: kernels (random shapes), wide (kernels at the real widths), models (random shapes), full (the real widths).
const parts = new Set(args.parts!.split(','));
const precision = args.precision as Precision;
await startCompute({ backend: 'cuda', precision });
const cuda = tf.backend() as CudaBackend;
let passed = 0;
let failed = 0;

let unpinnedSeen = 0;
function report(name: string, problems: string, started: number): void {
  const unpinned = [...cuda.unpinnedGemms].slice(unpinnedSeen);
  unpinnedSeen += unpinned.length;
  if (unpinned.length) problems += `${problems ? '\n' : ''}  GEMM plans the pinned algorithm could not serve: ${unpinned.join(', ')}`;
  const ok = problems === '';
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${precision} ${name} (${((performance.now() - started) / 1000).toFixed(1)} s)${ok ? '' : `\n${problems}`}`);
  if (ok) passed++; else failed++;
}

async function kernels(name: string, options: Parameters<typeof checkKernelInvariance>[0]): Promise<void> {
  const started = performance.now();
  const results = await checkKernelInvariance(options);
  const problems = results.filter((r) => r.found.length)
    .map((r) => `  ${r.kernel} (${r.shape.heads} heads × ${r.shape.headSize}, ffn ${r.shape.ffn}):\n${describeBatchDependence(r.found, r.lengths)}`)
    .join('\n');
  report(`${name}: ${results.length} kernel cases`, problems, started);
}

async function esm2(name: string, config: Esm2Config, seed: number, count: number, maxTokens: number): Promise<void> {
  const started = performance.now();
  const rand = seededRandom(300 + seed);
  const model = new Esm2Model(config, randomEsm2Weights(config, seed));
  await calibrateEsm2(model); // fp8: the corrected biases, as embedding runs them
  const lengths = randomLengths(rand, count, maxTokens, 3);
  const residues = 'ACDEFGHIKLMNPQRSTVWY';
  const proteins = lengths.map((n) => tokenizeProtein(Array.from({ length: n - 2 }, () => residues[randomInt(rand, 0, 19)]).join('')));
  const found = await findBatchDependence(proteins, lengths, (batch) => rowsAndMeansPerItem(() => model.forwardPacked(batch), 1), rand);
  model.dispose();
  report(`ESM-2 ${name} (${config.numLayers} layers, ${config.numHeads} heads, d ${config.embedDim}, ffn ${config.ffnDim}; ${count} proteins ≤ ${maxTokens} tokens)`, describeBatchDependence(found, lengths), started);
}

async function dnabert(name: string, config: DnabertConfig, seed: number, count: number, maxTokens: number): Promise<void> {
  const started = performance.now();
  const rand = seededRandom(400 + seed);
  const model = new DnabertModel(config, randomDnabertWeights(config, seed));
  const lengths = randomLengths(rand, count, maxTokens);
  const sequences = lengths.map((n) => Int32Array.from({ length: n }, () => randomInt(rand, 0, config.vocabSize - 1)));
  const forward = (batch: Int32Array[]) => () => {
    const layout = packedLayout(batch.map((t) => t.length));
    const ids = new Int32Array(layout.totalTokens);
    batch.forEach((t, s) => ids.set(t, layout.offsets[s]));
    return { hidden: model.forwardPacked(ids, layout), layout };
  };
  const found = await findBatchDependence(sequences, lengths, (batch) => rowsAndMeansPerItem(forward(batch)), rand);
  model.dispose();
  report(`DNABERT-S ${name} (${config.numLayers} layers, ${config.numHeads} heads, d ${config.hiddenSize}, ffn ${config.intermediateSize}; ${count} sequences ≤ ${maxTokens} tokens)`, describeBatchDependence(found, lengths), started);
}

const seeds = Array.from({ length: Number(args.seeds) }, (_, i) => i + 1);
if (parts.has('kernels')) for (const seed of seeds) await kernels(`kernels, random shapes, seed ${seed}`, { seed, shapes: 3, maxLength: 300 });
// The real models' widths: batches of up to ~20K rows against single sequences.
if (parts.has('wide')) await kernels('kernels, widths up to 2560, long batches', { seed: 11, shapes: 2, maxHidden: 2560, maxLength: 1200, sequences: 24 });
if (parts.has('models')) for (const seed of seeds) {
  const rand = seededRandom(500 + seed);
  const shape = randomModelShape(rand, { maxHidden: 256, evenHeadSize: true, ...(seed === 2 ? { heads: 1 } : {}) });
  await esm2(`random shape, seed ${seed}`, {
    numLayers: randomInt(rand, 1, 8), embedDim: shape.heads * shape.headSize, numHeads: shape.heads, ffnDim: shape.ffn,
    vocabSize: 33, layerNormEps: 1e-5, tokenDropout: true, name: `random-${seed}`,
  }, seed, 7, 300);
  const dshape = randomModelShape(rand, { maxHidden: 256, ...(seed === 2 ? { heads: 1 } : {}) });
  await dnabert(`random shape, seed ${seed}`, {
    vocabSize: 64, hiddenSize: dshape.heads * dshape.headSize, numLayers: randomInt(rand, 1, 8), numHeads: dshape.heads,
    intermediateSize: dshape.ffn, layerNormEps: 1e-12,
  }, seed, 7, 300);
}
if (parts.has('full')) await esm2('3B width', { numLayers: 2, embedDim: 2560, numHeads: 40, ffnDim: 10240, vocabSize: 33, layerNormEps: 1e-5, tokenDropout: true, name: '3B-width' }, 9, 16, 1024);
if (parts.has('full')) await dnabert('full width', { vocabSize: 4096, hiddenSize: 768, numLayers: 2, numHeads: 12, intermediateSize: 3072, layerNormEps: 1e-12 }, 9, 16, 512);
console.log(`GEMM weight shapes pinned to a measured cuBLASLt configuration: ${[...cuda.tunedGemms].join(', ') || 'none'}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
