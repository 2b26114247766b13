// The fp16-overflow path of the cuda backend, checked for real: an ESM-2 checkpoint (the test-data/esm2 fixture)
// with one layer's fc2 scaled up so that the residual stream overflows fp16 (→ Inf → NaN means) but not fp32.
// The reduced-precision model must give non-finite means, and retryNonFiniteInFullPrecision must recompute the
// batch with an fp32 copy made inside inFullPrecision, matching the same model on the cpu backend.
//   node .bundle/overflow-esm2.mjs --backend cuda [--precision fp16|bf16] [--scale 1e7]
// Prints one JSON object; exit 1 when the recomputed means are not finite or not within 1e-3 (relative) of cpu.
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { createEsm2Weights, Esm2Model, loadEsm2Checkpoint, tokenizeProtein } from '@virnucpro/esm2';
import { planCompute, startCompute, type BackendName, type Precision } from '@virnucpro/compute';
import { inFullPrecision, retryNonFiniteInFullPrecision } from '@virnucpro/ops';
import { toFloat32, type TensorData } from '@virnucpro/weights';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'cuda' },
    precision: { type: 'string', default: 'fp16' },
    scale: { type: 'string', default: '1e7' },
    fixture: { type: 'string', default: 'test-data/esm2' },
  },
});
const checkpoint = await loadEsm2Checkpoint(args.fixture!);
const tensors = new Map(checkpoint.tensors);
for (const name of ['layers.0.fc2.weight', 'layers.0.fc2.bias'] as const) {
  const t = tensors.get(name)!;
  tensors.set(name, { ...t, dtype: 'float32', data: toFloat32(t).map((v) => v * Number(args.scale)) } as TensorData);
}
const proteins = ['MKTAYIAKQRQISFVKSHFSRQ', 'MVLSPADKTNVKAAW', 'MKV'].map((s) => tokenizeProtein(s));
const build = () => new Esm2Model(checkpoint.config, createEsm2Weights(checkpoint.config, tensors));
const finite = (vs: Float32Array[]) => vs.every((v) => v.every(Number.isFinite));

await startCompute({ backend: 'cpu' });
const cpuModel = build();
const reference = await cpuModel.meanEmbeddings(proteins);
cpuModel.dispose();

const backend = (await startCompute((await planCompute({ backend: args.backend as BackendName, precision: args.precision as Precision })).settings)).backend;
const reduced = build();
const direct = await reduced.meanEmbeddings(proteins);
let fullModel: Esm2Model | undefined;
const retry = retryNonFiniteInFullPrecision((t: Int32Array[]) => reduced.meanEmbeddings(t), async () => {
  fullModel = inFullPrecision(build);
  return (t) => fullModel!.meanEmbeddings(t);
});
const recomputed = await retry.embed(proteins);
let maxRel = 0;
recomputed.forEach((v, i) => v.forEach((x, j) => {
  const r = reference[i][j];
  maxRel = Math.max(maxRel, Math.abs(x - r) / Math.max(1e-6, Math.abs(r)));
}));
const pass = finite(reference) && !finite(direct) && finite(recomputed) && retry.recomputed() === 1 && maxRel <= 1e-3;
console.log(JSON.stringify({
  backend, precision: args.precision, scale: Number(args.scale), referenceFinite: finite(reference), reducedFinite: finite(direct),
  recomputedFinite: finite(recomputed), recomputes: retry.recomputed(), maxRelativeDiffToCpu: maxRel, memory: tf.memory().numBytes, pass,
}, null, 1));
reduced.dispose();
fullModel?.dispose();
process.exitCode = pass ? 0 : 1;
