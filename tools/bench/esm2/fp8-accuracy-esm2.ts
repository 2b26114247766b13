// How far ESM-2's fp8 path (cuda --precision fp8) moves the mean embeddings from fp32, per choice of the linear
// layers kept in bf16 (the A/B behind the default), on one model with random weights at a released size, and each
// choice's throughput on --throughput-sequences proteins of 50 residues (52 tokens) at a 32K-token budget. One
// process: the fp32 reference is an fp32 copy of the same weights (inFullPrecision). Prints one JSON object.
//   bash tools/device/bundle.sh tools/bench/esm2/fp8-accuracy-esm2.ts
//   node .bundle/fp8-accuracy-esm2.mjs --size 3B --sequences 48 [--variants N: the first N choices only; 1 = --precision fp8 as it runs]
//     [--set block-layers: the choices of which layers the first blocks keep in bf16, instead of the layer types']
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { calibrateEsm2, esm2Architectures, esm2Defaults, Esm2Model, tokenizeProtein, type Esm2Config } from '@virnucpro/esm2';
import { type CudaBackend, type Fp8LayerRole } from '@virnucpro/tfjs-backend-cuda';
import { startCompute } from '@virnucpro/compute';
import { inFullPrecision } from '@virnucpro/ops';
import { timePackedBatches } from '../gpu/model-bench-helpers.js';
import { esm2Parameters, randomEsm2Weights, randomProteins } from './random-esm2.js';

const { values: args } = parseArgs({
  options: { size: { type: 'string', default: '8M' }, sequences: { type: 'string', default: '48' }, 'throughput-sequences': { type: 'string', default: '0' }, variants: { type: 'string' }, set: { type: 'string', default: 'layers' } },
});
const archName = Object.keys(esm2Architectures).find((n) => n.includes(`_${args.size}_`));
if (!archName) throw new Error(`--size ${args.size}: expected one of 8M, 35M, 150M, 650M, 3B, 15B`);
const arch = esm2Architectures[archName];
const config: Esm2Config = { ...esm2Defaults, ...arch, ffnDim: 4 * arch.embedDim, name: `${archName} (random weights)` };

await startCompute({ backend: 'cuda', precision: 'fp8' });
const cuda = tf.backend() as CudaBackend;
const residues = [50, 99, 165];
const proteins = randomProteins(Number(args.sequences), residues, 11).map((s) => tokenizeProtein(s));

const full = inFullPrecision(() => new Esm2Model(config, randomEsm2Weights(config)));
const reference = await inFullPrecision(() => full.meanEmbeddings(proteins));
full.dispose();
const model = new Esm2Model(config, randomEsm2Weights(config));
// As loadEsm2Embedder does: the bias correction's calibration pass over the package's fixed proteins.
await calibrateEsm2(model);

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
  return dot / Math.sqrt(na * nb);
}

type Variant = { bf16Layers: Fp8LayerRole[]; bf16Blocks?: number; bf16BlockLayers?: Fp8LayerRole[]; fastAccum?: boolean; biasCorrection?: boolean; sequenceCorrection?: boolean };
const layerVariants: Variant[] = [
  // --precision fp8 as it runs; the first blocks in bf16 (bf16Blocks; default ⌈blocks/9⌉) 0, 3, 6; with the
  // per-sequence correction (fp8-sequence-correction.ts); without the bias correction (fp8-bias-correction.ts).
  { bf16Layers: [] }, { bf16Layers: [], bf16Blocks: 0 }, { bf16Layers: [], bf16Blocks: 3 }, { bf16Layers: [], bf16Blocks: 6 },
  { bf16Layers: [], sequenceCorrection: true }, { bf16Layers: [], bf16Blocks: 0, biasCorrection: false }, { bf16Layers: ['out'] }, { bf16Layers: ['fc2'] }, { bf16Layers: ['out', 'fc2'] }, { bf16Layers: ['qkv', 'fc1'] },
  // One layer type at a time in FP8 (the others bf16): each type's own share of the error.
  { bf16Layers: ['out', 'fc1', 'fc2'] }, { bf16Layers: ['qkv', 'fc1', 'fc2'] }, { bf16Layers: ['qkv', 'out', 'fc2'] }, { bf16Layers: ['qkv', 'out', 'fc1'] },
  { bf16Layers: ['qkv', 'out'] },
  // The A/B of the accumulation mode (fast is --precision fp8's default; the per-layer rows of 2026-11-25 18:11 UTC ran exact).
  { bf16Layers: [], fastAccum: false }, { bf16Layers: ['qkv', 'out', 'fc1', 'fc2'] },
];
// The first blocks with only some layers in bf16 (bf16BlockLayers), the others FP8: where those blocks' accuracy
// comes from, against what their bf16 GEMMs cost (fc1 and fc2 are 2/3 of a block's FLOPs).
const blockLayerVariants: Variant[] = [
  { bf16Layers: [] }, { bf16Layers: [], bf16BlockLayers: ['qkv', 'out'] }, { bf16Layers: [], bf16BlockLayers: ['qkv', 'out', 'fc2'] },
  { bf16Layers: [], bf16BlockLayers: ['qkv', 'out', 'fc1'] }, { bf16Layers: [], bf16BlockLayers: ['qkv'] }, { bf16Layers: [], bf16BlockLayers: ['qkv', 'fc2'] },
  { bf16Layers: [], bf16Blocks: 6, bf16BlockLayers: ['qkv', 'out'] }, { bf16Layers: [], bf16Blocks: 9, bf16BlockLayers: ['qkv', 'out'] },
  { bf16Layers: [], bf16Blocks: 9, bf16BlockLayers: ['qkv'] }, { bf16Layers: [], bf16Blocks: 0 },
];
const sets: Record<string, Variant[]> = { layers: layerVariants, 'block-layers': blockLayerVariants };
const variants = sets[args.set];
if (!variants) throw new Error(`--set ${args.set}: expected one of ${Object.keys(sets).join(', ')}`);
const timing = randomProteins(Number(args['throughput-sequences']), [50], 5).map((s) => tokenizeProtein(s));
const flop = { matmulParameters: esm2Parameters(config), hiddenSize: config.embedDim, layers: config.numLayers };
const results = [];
for (const variant of variants.slice(0, args.variants ? Number(args.variants) : variants.length)) {
  cuda.fp8Bf16Layers = new Set(variant.bf16Layers);
  cuda.fp8FastAccum = variant.fastAccum ?? true;
  cuda.fp8BiasCorrection = variant.biasCorrection ?? true;
  cuda.fp8SequenceCorrection = variant.sequenceCorrection ?? false;
  cuda.fp8Bf16Blocks = { every: variant.bf16Blocks, byDepth: new Map() };
  cuda.fp8Bf16BlockLayers = variant.bf16BlockLayers && new Set(variant.bf16BlockLayers);
  const means = await model.meanEmbeddings(proteins);
  const byLength = residues.map((r) => {
    const cos = proteins.flatMap((t, i) => (t.length === r + 2 ? [cosine(means[i], reference[i])] : []));
    return { tokens: r + 2, proteins: cos.length, minCosine: Math.min(...cos), meanCosine: cos.reduce((a, b) => a + b, 0) / cos.length };
  });
  // Batch invariance: the first protein alone gives the same numbers as inside the batch.
  const [alone] = await model.meanEmbeddings([proteins[0]]);
  let maxAbsDiff = 0;
  alone.forEach((v, j) => (maxAbsDiff = Math.max(maxAbsDiff, Math.abs(v - means[0][j]))));
  const speed = timing.length ? await timePackedBatches(model, timing, 32768, 2, flop) : undefined;
  results.push({ ...variant, minCosine: Math.min(...byLength.map((l) => l.minCosine)), byLength, aloneVsBatchMaxAbsDiff: maxAbsDiff, speed });
  console.error(JSON.stringify(results[results.length - 1]));
}
console.log(JSON.stringify({ date: new Date().toISOString(), model: archName, proteins: proteins.length, reference: 'fp32 (exact, same weights)', variants: results, cuda: cuda.describe() }));
