// ESM-2 parity against the PyTorch reference fixture (test-data/esm2) on one backend; prints one JSON
// object and exits 1 on failure. For backends CI cannot run (webgpu, tensorflow):
//   node .bundle/parity-esm2.mjs --backend webgpu|cuda [--precision fp32|fp16|bf16] [--model test-data/esm2[/fair_esm.pt|/pytorch_model.bin]]
// Reports max |Δ| of per-token hidden states and of mean embeddings and the minimum cosine, for each
// sequence alone and for one packed batch of all of them, against the tolerances of the fixture
// (hidden ≤ 1e-4, means ≤ 1e-5, cosine ≥ 0.99999).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createEsm2Weights, Esm2Model, loadEsm2Checkpoint, tokenizeProtein } from '@virnucpro/esm2';
// Registers the cuda backend (a bundle cannot load it by name at run time).
import { planCompute, startCompute, type BackendChoice, type Precision } from '@virnucpro/compute';
import { readSafetensors, toFloat32 } from '@virnucpro/weights';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'auto' },
    fixture: { type: 'string', default: 'test-data/esm2' },
    model: { type: 'string' },
    precision: { type: 'string' },
  },
});
// fp32: the CPU tolerances. fp16/bf16 (cuda): mean embeddings within cosine 0.9999 of the fp32 reference.
const reduced = args.precision === 'fp16' || args.precision === 'bf16';
const dir = args.fixture!;
const backend = (await startCompute((await planCompute({ backend: args.backend as BackendChoice, ...(args.precision ? { precision: args.precision as Precision } : {}) })).settings)).backend;
const inputs = JSON.parse(await readFile(join(dir, 'inputs.json'), 'utf8')) as { sequences: string[] };
const expected = (await readSafetensors(join(dir, 'expected.safetensors'))).tensors;
const want = (name: string) => toFloat32(expected.get(name)!);
const checkpoint = await loadEsm2Checkpoint(args.model ?? dir);
const model = new Esm2Model(checkpoint.config, createEsm2Weights(checkpoint.config, checkpoint.tensors));

function compare(a: ArrayLike<number>, b: ArrayLike<number>) {
  let maxAbs = 0, dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    maxAbs = Number.isNaN(d) ? Infinity : Math.max(maxAbs, d);
    dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i];
  }
  return { maxAbs, cosine: dot / Math.sqrt(na * nb) };
}
const stats = () => ({ hiddenMaxAbs: 0, meanMaxAbs: 0, minCosine: 1, meanMinCosine: 1 });
const add = (s: ReturnType<typeof stats>, key: 'hiddenMaxAbs' | 'meanMaxAbs', c: { maxAbs: number; cosine: number }) => {
  s[key] = Math.max(s[key], c.maxAbs);
  s.minCosine = Math.min(s.minCosine, c.cosine);
  if (key === 'meanMaxAbs') s.meanMinCosine = Math.min(s.meanMinCosine, c.cosine);
};

const tokens = inputs.sequences.map((s) => tokenizeProtein(s));
const single = stats();
for (const [i, t] of tokens.entries()) {
  const { hidden, layout } = model.forwardPacked([t]);
  add(single, 'hiddenMaxAbs', compare(await hidden.data(), want(`hidden.${i}`)));
  hidden.dispose();
  layout.dispose();
  const [mean] = await model.meanEmbeddings([t]);
  add(single, 'meanMaxAbs', compare(mean, want(`mean.${i}`)));
}
const packed = stats();
const order = tokens.map((_, i) => tokens.length - 1 - i); // reversed, so positions differ from the single runs
const { hidden, layout } = model.forwardPacked(order.map((i) => tokens[i]));
const rows = (await hidden.data()) as Float32Array;
order.forEach((i, s) => add(packed, 'hiddenMaxAbs', compare(rows.subarray(layout.offsets[s] * model.dim, layout.offsets[s + 1] * model.dim), want(`hidden.${i}`))));
hidden.dispose();
layout.dispose();
(await model.meanEmbeddings(order.map((i) => tokens[i]))).forEach((m, s) => add(packed, 'meanMaxAbs', compare(m, want(`mean.${order[s]}`))));
model.dispose();

const pass = reduced ? Math.min(single.meanMinCosine, packed.meanMinCosine) >= 0.9999 : Math.max(single.hiddenMaxAbs, packed.hiddenMaxAbs) <= 1e-4 &&
  Math.max(single.meanMaxAbs, packed.meanMaxAbs) <= 1e-5 &&
  Math.min(single.minCosine, packed.minCosine) >= 0.99999;
console.log(JSON.stringify({ backend, precision: args.precision ?? 'fp32', model: args.model ?? dir, sequences: tokens.length, single, packed, pass }, null, 1));
process.exitCode = pass ? 0 : 1;
