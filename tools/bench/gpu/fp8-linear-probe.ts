// ESM-2 3B's four linear layers on random data as the cuda backend runs them in fp8 (FP8 GEMM + its epilogue) and
// in bf16, at --rows tokens: the GEMM mode cuBLASLt took, GPU ms per call of each (CUDA events, mean of --reps after
// one warm-up), and how far the fp8 output is from the bf16 one (cosine, max |Δ| / max |bf16|). Prints JSON.
//   node .bundle/fp8-linear-probe.mjs --rows 16384
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import { fp8LayerRoles, type CudaBackend } from '@virnucpro/tfjs-backend-cuda';
import { startCompute } from '@virnucpro/compute';
import { linear } from '@virnucpro/ops';

const { values: args } = parseArgs({ options: { rows: { type: 'string', default: '16384' }, reps: { type: 'string', default: '10' } } });
const rows = Number(args.rows);
await startCompute({ backend: 'cuda', precision: 'fp8' });
const cuda = tf.backend() as CudaBackend;
const d = 2560;
const shapes: { name: string; inner: number; cols: number; gelu?: boolean; residual?: boolean }[] = [
  { name: 'qkv', inner: d, cols: 3 * d }, { name: 'out', inner: d, cols: d, residual: true },
  { name: 'fc1', inner: d, cols: 4 * d, gelu: true }, { name: 'fc2', inner: 4 * d, cols: d, residual: true },
];
const results = [];
for (const s of shapes) {
  const x = tf.randomUniform([rows, s.inner], -2, 2) as tf.Tensor2D;
  const w = tf.randomUniform([s.inner, s.cols], -0.02, 0.02) as tf.Tensor2D;
  const b = tf.randomUniform([s.cols], -0.1, 0.1) as tf.Tensor1D;
  const r = s.residual ? (tf.randomUniform([rows, s.cols], -1, 1) as tf.Tensor2D) : undefined;
  const call = () => linear(x, w, b, { ...(s.gelu ? { activation: 'gelu' as const } : {}), ...(r ? { residual: r } : {}) });
  const measure = async (bf16: boolean) => {
    cuda.fp8Bf16Layers = new Set(bf16 ? fp8LayerRoles : []);
    const y = call();
    const values = (await y.data()) as Float32Array;
    y.dispose();
    let ms = 0;
    for (let i = 0; i < Number(args.reps); i++) {
      let out: tf.Tensor | undefined;
      ms += (await cuda.time(() => { out = call(); })).kernelMs as number;
      out!.dispose();
    }
    return { values, ms: ms / Number(args.reps) };
  };
  const fp8 = await measure(false);
  const bf16 = await measure(true);
  let dot = 0, na = 0, nb = 0, maxRef = 0, maxErr = 0;
  for (let i = 0; i < fp8.values.length; i++) {
    const a = fp8.values[i], c = bf16.values[i];
    dot += a * c; na += a * a; nb += c * c; maxRef = Math.max(maxRef, Math.abs(c)); maxErr = Math.max(maxErr, Math.abs(a - c));
  }
  const mode = cuda.describe().fp8?.gemms[`${rows}:${s.inner}:${s.cols}:true:${Boolean(r)}`];
  results.push({ layer: s.name, rows, inner: s.inner, cols: s.cols, mode, fp8Ms: +fp8.ms.toFixed(3), bf16Ms: +bf16.ms.toFixed(3), speedup: +(bf16.ms / fp8.ms).toFixed(3), cosine: dot / Math.sqrt(na * nb), maxRelErr: maxErr / maxRef });
  console.error(JSON.stringify(results[results.length - 1]));
  tf.dispose([x, w, b, ...(r ? [r] : [])]);
}
console.log(JSON.stringify({ date: new Date().toISOString(), gpu: cuda.describe().device, results }));
