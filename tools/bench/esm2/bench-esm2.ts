// ESM-2 throughput (tokens/s) with random weights at a released size, on packed batches of about
// --token-budget tokens, for one or more protein length sets after one model setup. Prints one JSON object.
// Runs from source here and bundled on the GPU machine:
//   bash tools/device/bundle.sh tools/bench/esm2/bench-esm2.ts
//   node .bundle/bench-esm2.mjs --backend cuda --precision fp16 --size 3B --length-sets 50:99:165 --budgets 8192,16384
// Options: --backend cpu|wasm|webgpu|tensorflow|cuda|auto  --precision fp32|fp16|bf16 (cuda)  --size 8M|…|3B|15B
//   --budgets N[,N…] (token budgets, default 4096)  --sequences N (per set, default 64)
//   --length-sets A[,B…][:C…] (residues per protein, cycled within a set; sets separated by ':'. 50 = frames of
//   150-bp reads, 99/165 = VirNucPro's 300/500-bp chunks; tokens = residues + 2)  --warmup N (batches, default 1)
//   --means-out FILE  (float32 means of 32 fixed proteins of 52/101/167 tokens)  --means-ref FILE (cosine against them)
//   --profile (cuda: GPU time per kernel over one batch of the first set at the first budget)
//   --in-flight N (batches in flight at once; default as the tools run: 2 on cuda, else 1; 1 = each batch awaited)
//   --variants tuned+epilogue,pinned+epilogue,per-rows+erf,pinned+epilogue+regs,… (cuda: A/B of the GEMM algorithm choice, fc1's GELU and fp8's row quantisation in one process,
//   one model setup; --rounds N, order reversed every other round; means checked per variant)
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { calibrateEsm2, esm2Architectures, esm2Defaults, Esm2Model, tokenizeProtein, type Esm2Config } from '@virnucpro/esm2';
// Registers the cuda backend (a bundle cannot load it by name at run time).
import { planCompute, startCompute, type BackendChoice, type Precision } from '@virnucpro/compute';
import { packArray } from '@virnucpro/packer';
import { applyCudaVariant, benchBatchesInFlight, benchmarkFigures, checkMeans, parseCudaVariants, profileForward, timePackedBatches } from '../gpu/model-bench-helpers.js';
import { esm2Parameters, randomEsm2Weights, randomProteins } from './random-esm2.js';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'auto' },
    precision: { type: 'string' },
    size: { type: 'string', default: '8M' },
    budgets: { type: 'string' },
    'token-budget': { type: 'string', default: '4096' },
    sequences: { type: 'string', default: '64' },
    'length-sets': { type: 'string' },
    lengths: { type: 'string', default: '99,165' },
    warmup: { type: 'string', default: '1' },
    'means-out': { type: 'string' },
    'means-ref': { type: 'string' },
    profile: { type: 'boolean', default: false },
    'in-flight': { type: 'string' },
    variants: { type: 'string' },
    rounds: { type: 'string', default: '2' },
  },
});

const archName = Object.keys(esm2Architectures).find((n) => n.includes(`_${args.size}_`));
if (!archName) throw new Error(`--size ${args.size}: expected one of 8M, 35M, 150M, 650M, 3B, 15B`);
const arch = esm2Architectures[archName];
const config: Esm2Config = { ...esm2Defaults, ...arch, ffnDim: 4 * arch.embedDim, name: `${archName} (random weights)` };

const backend = (await startCompute((await planCompute({ backend: args.backend as BackendChoice, ...(args.precision ? { precision: args.precision as Precision } : {}) })).settings)).backend;
const inFlight = benchBatchesInFlight(backend, args['in-flight']);
const t0 = performance.now();
const model = new Esm2Model(config, randomEsm2Weights(config));
await calibrateEsm2(model); // as loadEsm2Embedder does (fp8 only)
await model.meanEmbeddings([tokenizeProtein('MKV')]); // materialise weights, compile kernels/shaders
const setupSeconds = (performance.now() - t0) / 1000;
const parameters = esm2Parameters(config);

const budgets = (args.budgets ?? args['token-budget']!).split(',').map(Number);
const sets = (args['length-sets'] ?? args.lengths!).split(':').map((s) => s.split(',').map(Number));
const runs = [];
const probe = randomProteins(32, [50, 99, 165], 99).map((s) => tokenizeProtein(s));
const variants = args.variants ? parseCudaVariants(args.variants) : [undefined];
const variantMeans: Record<string, object | undefined> = {};
const proteinSets = sets.map((lengths) => ({ lengths, tokens: randomProteins(Number(args.sequences), lengths).map((s) => tokenizeProtein(s)) }));
for (let round = 0; round < (args.variants ? Number(args.rounds) : 1); round++) {
  for (const variant of round % 2 ? [...variants].reverse() : variants) {
    if (variant) {
      applyCudaVariant(variant);
      if (round === 0) variantMeans[variant.name] = await checkMeans(model, probe, undefined, args['means-ref']);
    }
    for (const { lengths, tokens } of proteinSets) {
      for (const budget of budgets) {
        const run = await timePackedBatches(model, tokens, budget, Number(args.warmup), { matmulParameters: parameters, hiddenSize: config.embedDim, layers: config.numLayers }, inFlight);
        runs.push({ ...(variant ? { variant: variant.name, round } : {}), residues: lengths, ...run });
        console.error(JSON.stringify(runs[runs.length - 1]));
      }
    }
  }
}

if (variants[0]) applyCudaVariant(variants[0]);
const meansCheck = await checkMeans(model, probe, args['means-out'], args['means-ref']);

let profile: object | undefined;
if (args.profile) {
  const tokens = randomProteins(4 * budgets[0], sets[0], 5).map((s) => tokenizeProtein(s));
  const [batch] = packArray(tokens.map((t, index) => ({ index, tokens: t.length, value: t })), { tokenBudget: budgets[0] }).map((b) => b.items.map((i) => i.value));
  profile = await profileForward(model, batch, backend);
}

const result = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version },
  backend,
  precision: args.precision ?? (backend === 'cuda' ? 'fp16' : 'fp32'),
  model: archName,
  parameters,
  ...benchmarkFigures(setupSeconds, runs, meansCheck, profile),
  ...(args.variants ? { variantMeans } : {}),
};
model.dispose();
console.log(JSON.stringify(result, null, 1));
