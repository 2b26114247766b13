// DNABERT parity against the PyTorch reference fixture on one backend; prints one JSON object.
//   node parity-dnabert.mjs --backend webgpu|cuda [--precision fp32|fp16|bf16] [--model test-data/dnabert/tiny] [--weights FILE]
// Reports max |Δ| of hidden states (each sequence alone, all packed, the padded batch), max |Δ| of
// the mean embeddings and the minimum cosine, plus pass/fail against the fixture tolerances
// (hidden ≤ 1e-4, means ≤ 1e-5, cosine ≥ 0.99999; in fp16/bf16: means cosine ≥ 0.9999).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadDnabert } from '@virnucpro/dnabert';
// Registers the cuda backend (a bundle cannot load it by name at run time).
import { planCompute, startCompute, type BackendChoice, type Precision } from '@virnucpro/compute';
import { readSafetensors } from '@virnucpro/weights';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'auto' },
    model: { type: 'string', default: 'test-data/dnabert/tiny' },
    weights: { type: 'string' },
    precision: { type: 'string' },
  },
});
const dir = args.model!;
const backend = (await startCompute((await planCompute({ backend: args.backend as BackendChoice, ...(args.precision ? { precision: args.precision as Precision } : {}) })).settings)).backend;
const precision = args.precision ?? (backend === 'cuda' ? 'fp16' : 'fp32');
const reduced = precision !== 'fp32';
const inputs = JSON.parse(await readFile(join(dir, 'inputs.json'), 'utf8')) as { sequences: string[]; token_ids: number[][] };
const expected = (await readSafetensors(join(dir, 'expected.safetensors'))).tensors;
const f32 = (name: string) => expected.get(name)!.data as Float32Array;
const { model, tokenizer, weightsPath } = await loadDnabert(dir, args.weights ? { weights: args.weights } : {});

const maxAbs = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};
const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
  return dot / Math.sqrt(na * nb);
};

const tokenized = inputs.sequences.map((s) => tokenizer.encode(s));
const tokenizerMatches = tokenized.every((t, i) => t.join() === inputs.token_ids[i].join());
const single = { hiddenMaxAbs: 0, meanMaxAbs: 0, minCosine: 1 };
for (const [i, t] of tokenized.entries()) {
  const [h] = await model.hiddenStates([t]);
  const [m] = await model.meanEmbeddings([t]);
  single.hiddenMaxAbs = Math.max(single.hiddenMaxAbs, maxAbs(h, f32(`hidden.${i}`)));
  single.meanMaxAbs = Math.max(single.meanMaxAbs, maxAbs(m, f32(`mean.${i}`)));
  single.minCosine = Math.min(single.minCosine, cosine(m, f32(`mean.${i}`)));
}
const packed = { hiddenMaxAbs: 0, meanMaxAbs: 0, minCosine: 1 };
(await model.hiddenStates(tokenized)).forEach((h, i) => (packed.hiddenMaxAbs = Math.max(packed.hiddenMaxAbs, maxAbs(h, f32(`hidden.${i}`)))));
(await model.meanEmbeddings(tokenized)).forEach((m, i) => {
  packed.meanMaxAbs = Math.max(packed.meanMaxAbs, maxAbs(m, f32(`mean.${i}`)));
  packed.minCosine = Math.min(packed.minCosine, cosine(m, f32(`mean.${i}`)));
});
const ids = expected.get('batch.input_ids')!;
const padded = await model.hiddenStatesPadded(ids.data as Int32Array, expected.get('batch.attention_mask')!.data as Int32Array, ids.shape[0], ids.shape[1]);
const paddedHiddenMaxAbs = maxAbs(padded, f32('batch.hidden'));
model.dispose();

const pass = tokenizerMatches && (reduced
  ? Math.min(single.minCosine, packed.minCosine) >= 0.9999
  : Math.max(single.hiddenMaxAbs, packed.hiddenMaxAbs, paddedHiddenMaxAbs) <= 1e-4 &&
    Math.max(single.meanMaxAbs, packed.meanMaxAbs) <= 1e-5 &&
    Math.min(single.minCosine, packed.minCosine) >= 0.99999);
console.log(JSON.stringify({ backend, precision, weights: weightsPath, sequences: inputs.sequences.length, tokenizerMatches, single, packed, paddedHiddenMaxAbs, pass }, null, 1));
process.exitCode = pass ? 0 : 1;
