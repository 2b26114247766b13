// The package's GPU test suite (needs an NVIDIA GPU; CI has none): every cuda kernel against the composite
// kernels of @virnucpro/ops on tfjs' cpu backend, on seeded random inputs and edge cases, in one precision.
//   node kernels.gpu.mjs --precision fp32|fp16|bf16        (tools/device/run-cuda-tests.sh runs all three)
// Prints one line per case and ends with "N passed, M failed"; exits 1 on any failure.
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { embedding, geglu, halfToFloat, initBackend, layerNorm, linear, packedAttention, packedLayout, rotaryQkv, segmentMean, type Precision } from '@virnucpro/ops';
import { float32ToFloat16Bits, halfBitsToNumber } from '@virnucpro/weights';
import '../src/index.js';

const { values: args } = parseArgs({ options: { precision: { type: 'string', default: 'fp32' } } });
const precision = args.precision as Precision;
// Largest |cuda − reference| allowed, relative to the reference's largest |value|. Inputs are rounded to the
// storage type first, so both sides see the same values and the difference is the kernels' own (fp32 math
// throughout, outputs and softmax probabilities rounded to the storage type).
const tolerances: Partial<Record<Precision, number>> = { fp32: 2e-5, fp16: 3e-3, bf16: 2.5e-2 };
const tolerance = tolerances[precision] ?? Number.NaN; // NaN: every case fails, saying so (no tolerance set for it)

/** Rounds fp32 values to the storage type (round to nearest even), as an upload to the backend does. */
function toStorage(values: Float32Array): Float32Array {
  if (precision === 'fp32') return values;
  if (precision === 'fp16') return Float32Array.from(float32ToFloat16Bits(values), halfBitsToNumber);
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  for (let i = 0; i < bits.length; i++) bits[i] = ((bits[i] + 0x7fff + ((bits[i] >>> 16) & 1)) >>> 16) << 16;
  return values;
}

let seed = 12345;
function random(n: number, lo = -1, hi = 1): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0;
    out[i] = lo + ((seed >>> 8) / 2 ** 24) * (hi - lo);
  }
  return toStorage(out);
}

async function run(backend: string, build: () => tf.Tensor): Promise<Float32Array> {
  await tf.setBackend(backend);
  const before = tf.memory().numTensors;
  const t = tf.tidy(build);
  const values = (await t.data()) as Float32Array;
  t.dispose();
  const leaked = tf.memory().numTensors - before;
  if (leaked !== 0) throw new Error(`${backend}: ${leaked} tensors leaked`);
  return values;
}

let passed = 0;
let failed = 0;
async function check(name: string, build: () => tf.Tensor, tol = tolerance): Promise<void> {
  const started = performance.now();
  try {
    const want = await run('cpu', build);
    const got = await run('cuda', build);
    if (want.length !== got.length) throw new Error(`length ${got.length}, expected ${want.length}`);
    let maxRef = 0;
    let maxErr = 0;
    for (let i = 0; i < want.length; i++) {
      maxRef = Math.max(maxRef, Math.abs(want[i]));
      const e = Math.abs(got[i] - want[i]);
      maxErr = Number.isNaN(e) ? Infinity : Math.max(maxErr, e);
    }
    const rel = maxErr / Math.max(maxRef, 1e-30);
    const ok = rel <= tol;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: max |Δ| ${maxErr.toExponential(2)} (${rel.toExponential(2)} of max |ref| ${maxRef.toPrecision(3)}), ${((performance.now() - started) / 1000).toFixed(1)} s`);
    if (ok) passed++; else failed++;
  } catch (error) {
    console.log(`FAIL ${name}: ${(error as Error).stack}`);
    failed++;
  }
}

const backend = await initBackend('cuda', { precision });
console.log(`backend ${backend}, precision ${precision}`);

// Linear: bias, GELU epilogue, fused residual.
// 3×45: an output size no 16-byte word divides (the scalar GELU); the others take the vectorised one.
for (const [n, i, o] of [[1, 64, 48], [3, 40, 45], [7, 96, 160], [300, 256, 512], [4099, 64, 3 * 64]]) {
  const x = random(n * i); const w = random(i * o, -0.2, 0.2); const b = random(o); const r = random(n * o);
  await check(`linear ${n}×${i}·${i}×${o} +bias`, () => linear(tf.tensor2d(x, [n, i]), tf.tensor2d(w, [i, o]), tf.tensor1d(b)));
  await check(`linear ${n}×${i}·${i}×${o} no bias`, () => linear(tf.tensor2d(x, [n, i]), tf.tensor2d(w, [i, o])));
  await check(`linear ${n}×${i}·${i}×${o} +bias gelu`, () => linear(tf.tensor2d(x, [n, i]), tf.tensor2d(w, [i, o]), tf.tensor1d(b), { activation: 'gelu' }));
  await check(`linear ${n}×${i}·${i}×${o} +bias +residual`, () => linear(tf.tensor2d(x, [n, i]), tf.tensor2d(w, [i, o]), tf.tensor1d(b), { residual: tf.tensor2d(r, [n, o]) }));
  await check(`linear ${n}×${i}·${i}×${o} gelu +residual`, () => linear(tf.tensor2d(x, [n, i]), tf.tensor2d(w, [i, o]), tf.tensor1d(b), { activation: 'gelu', residual: tf.tensor2d(r, [n, o]) }));
}

// Weights given as fp16 / bf16 bits (halfToFloat: the cuda kernel converts them on the GPU; cpu widens on the host).
for (const n of [1, 7, 4096, 100003]) {
  const v = random(n, -3, 3);
  const f16 = float32ToFloat16Bits(v);
  const bf16 = Uint16Array.from(new Uint32Array(Float32Array.from(v).buffer), (u) => u >>> 16);
  await check(`halfToFloat float16 ${n}`, () => halfToFloat(f16, [n], 'float16'));
  await check(`halfToFloat bfloat16 ${n}`, () => halfToFloat(bf16, [n], 'bfloat16'));
}

// LayerNorm (offset inputs: a mean far from 0 tests the two-pass variance). Rows of 100 (16-bit storage) and
// 5,120 (fp32) take the shared-memory kernel, the others the one-word-per-thread kernel.
for (const [n, d] of [[1, 16], [33, 100], [257, 2560], [3, 5120]]) {
  const x = random(n * d, 2, 4); const g = random(d, 0.5, 1.5); const b = random(d);
  await check(`layerNorm ${n}×${d}`, () => layerNorm(tf.tensor2d(x, [n, d]), tf.tensor1d(g), tf.tensor1d(b), 1e-5));
}

// GeGLU.
for (const [n, f] of [[1, 8], [65, 3072], [7, 12], [3, 5]]) {
  const x = random(n * 2 * f, -3, 3);
  await check(`geglu ${n}×${2 * f}`, () => geglu(tf.tensor2d(x, [n, 2 * f])));
}

// Embedding with a scale, and with per-row scales.
{
  const V = 33, d = 64, ids = Int32Array.from({ length: 500 }, (_, i) => (i * 7919) % V); const table = random(V * d); const rowScale = random(500, 0, 2);
  await check('embedding scale 0.88', () => embedding(tf.tensor1d(ids, 'int32'), tf.tensor2d(table, [V, d]), 0.88));
  await check('embedding rowScale', () => embedding(tf.tensor1d(ids, 'int32'), tf.tensor2d(table, [V, d]), tf.tensor1d(rowScale)));
}

function positionsOf(lengths: number[]): Int32Array {
  return Int32Array.from(lengths.flatMap((n) => Array.from({ length: n }, (_, t) => t)));
}

// Rotary on the q and k thirds of a fused qkv (head size 24: half-heads of 12, the scalar kernel in 16-bit storage).
for (const [lengths, H, hd] of [[[1, 5, 40], 4, 16], [[7, 2], 3, 24], [[52, 101, 3], 40, 64]] as [number[], number, number][]) {
  const N = lengths.reduce((a, b) => a + b, 0); const P = Math.max(...lengths);
  const qkv = random(N * 3 * H * hd); const cos = random(P * hd); const sin = random(P * hd);
  await check(`rotaryQkv lengths ${lengths} H ${H} hd ${hd}`, () => rotaryQkv(tf.tensor2d(qkv, [N, 3 * H * hd]), tf.tensor2d(cos, [P, hd]), tf.tensor2d(sin, [P, hd]), tf.tensor1d(positionsOf(lengths), 'int32'), H));
}

// Packed attention: odd head counts and sizes, 1-token segments, one long segment, thousands of segments,
// a budget-sized batch of read-length proteins, ALiBi, pre-scaled and unscaled q.
const attentionCases: { name: string; lengths: number[]; H: number; hd: number; scale: number; alibi: boolean }[] = [
  { name: 'one 1-token segment', lengths: [1], H: 3, hd: 16, scale: 1, alibi: false },
  { name: 'tiny mixed', lengths: [1, 2, 3, 17], H: 5, hd: 16, scale: 0.25, alibi: false },
  { name: 'odd head size 24', lengths: [9, 70, 1], H: 3, hd: 24, scale: 0.2, alibi: false },
  { name: 'ALiBi 12 heads (DNABERT-S shape)', lengths: [30, 131, 2, 64, 65], H: 12, hd: 64, scale: 0.125, alibi: true },
  { name: 'one 1,024-token protein', lengths: [1024], H: 4, hd: 64, scale: 1, alibi: false },
  { name: 'long and short mixed', lengths: [1026, 3, 700, 1, 129], H: 2, hd: 32, scale: 1, alibi: false },
  { name: '2,000 segments of 5', lengths: Array(2000).fill(5), H: 2, hd: 16, scale: 1, alibi: false },
  { name: '16K-token batch of 52-token proteins', lengths: Array(315).fill(52), H: 8, hd: 64, scale: 1, alibi: false },
  { name: 'head size 128', lengths: [77, 200], H: 2, hd: 128, scale: 0.1, alibi: true },
];
for (const c of attentionCases) {
  const N = c.lengths.reduce((a, b) => a + b, 0);
  const qkv = random(N * 3 * c.H * c.hd, -2, 2);
  const slopes = Float32Array.from({ length: c.H }, (_, h) => 2 ** (-(h + 1) / 2));
  await check(`packedAttention ${c.name}`, () => {
    const layout = packedLayout(c.lengths);
    try {
      return packedAttention(tf.tensor2d(qkv, [N, 3 * c.H * c.hd]), layout, { numHeads: c.H, scale: c.scale, ...(c.alibi ? { alibiSlopes: slopes } : {}) });
    } finally {
      layout.dispose();
    }
  });
}

// Packed attention with rotary tables (ESM-2: q and k rotated as they are loaded on the tensor-core path, by a
// rotary pass first on the fp32 one): short and long segments (a long one's keys are loaded by several blocks).
for (const [name, lengths, H, hd] of [
  ['tiny mixed', [1, 2, 3, 17], 5, 16],
  ['odd head size 24', [9, 70, 1], 3, 24],
  ['long and short', [1026, 3, 129], 2, 64],
  ['100 read-length proteins (ESM-2 head size)', Array(100).fill(52), 8, 64],
] as [string, number[], number, number][]) {
  const N = lengths.reduce((a, b) => a + b, 0); const P = Math.max(...lengths);
  const qkv = random(N * 3 * H * hd, -2, 2); const cos = random(P * hd); const sin = random(P * hd);
  await check(`packedAttention with rotary, ${name}`, () => {
    const layout = packedLayout(lengths);
    try {
      const rotary = { cos: tf.tensor2d(cos, [P, hd]), sinSigned: tf.tensor2d(sin, [P, hd]) };
      if (tf.getBackend() === 'cuda') return packedAttention(tf.tensor2d(qkv, [N, 3 * H * hd]), layout, { numHeads: H, scale: 1, rotary });
      // The reference rotates on the cpu and rounds the rotated q and k to the storage type, as the cuda kernel
      // does before its tensor-core products (unrounded, unscaled scores of ±30 would differ by more than the
      // storage type's noise after the softmax).
      const rotated = rotaryQkv(tf.tensor2d(qkv, [N, 3 * H * hd]), rotary.cos, rotary.sinSigned, layout.positionsTensor, H);
      return packedAttention(tf.tensor2d(toStorage(rotated.dataSync().slice() as Float32Array), [N, 3 * H * hd]), layout, { numHeads: H, scale: 1 });
    } finally {
      layout.dispose();
    }
  });
}

// Segment means (BOS/EOS skipped and not).
for (const [lengths, skip] of [[[3, 1022, 7, 3], 1], [[1, 4, 9], 0]] as [number[], number][]) {
  const N = lengths.reduce((a, b) => a + b, 0); const d = 96; const x = random(N * d, -3, 5);
  await check(`segmentMean lengths ${lengths} skip ${skip}`, () => {
    const layout = packedLayout(lengths);
    try {
      return segmentMean(tf.tensor2d(x, [N, d]), layout, skip, skip);
    } finally {
      layout.dispose();
    }
  });
}

// Generic kernels the models use at load time, and a cpu fallback.
{
  const a = random(37 * 70); const b = random(70); const s = random(1);
  await check('transpose 37×70', () => tf.transpose(tf.tensor2d(a, [37, 70])));
  await check('concat axis 1', () => tf.concat([tf.tensor2d(a, [37, 70]), tf.tensor2d(a.subarray(0, 37 * 5), [37, 5])], 1));
  await check('concat axis 0', () => tf.concat([tf.tensor2d(a, [37, 70]), tf.tensor2d(b, [1, 70])], 0));
  await check('mul by scalar', () => tf.mul(tf.tensor2d(a, [37, 70]), 0.125));
  await check('add row vector', () => tf.add(tf.tensor2d(a, [37, 70]), tf.tensor1d(b)));
  await check('sub scalar tensor', () => tf.sub(tf.tensor2d(a, [37, 70]), tf.scalar(s[0])));
  await check('reshape', () => tf.reshape(tf.tensor2d(a, [37, 70]), [70, 37]));
  await check('cpu fallback (exp)', () => tf.exp(tf.tensor2d(a, [37, 70])));
}

// readSync and read agree; int32 round trip.
{
  await tf.setBackend('cuda');
  const x = random(1000);
  const t = tf.tensor1d(x);
  const sync = t.dataSync() as Float32Array;
  const asyncValues = (await t.data()) as Float32Array;
  const same = sync.every((v, i) => v === asyncValues[i]);
  const ints = tf.tensor1d(Int32Array.from([1, -2, 2 ** 30]), 'int32');
  const intsBack = await ints.data();
  const intsOk = intsBack[0] === 1 && intsBack[1] === -2 && intsBack[2] === 2 ** 30;
  tf.dispose([t, ints]);
  console.log(`${same && intsOk ? 'ok  ' : 'FAIL'} read/readSync agree, int32 round trip`);
  if (same && intsOk) passed++; else failed++;
  const memory = tf.memory() as tf.MemoryInfo & { numBytesInGPU?: number };
  console.log(`memory: ${JSON.stringify(memory)}`);
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
