// The package's GPU test suite (needs an NVIDIA GPU; CI has none): every cuda kernel against the composite
// kernels of @virnucpro/ops on tfjs' cpu backend, on seeded random inputs and edge cases, in one precision.
//   node kernels.gpu.mjs --precision fp32|fp16|bf16|fp8     (tools/device/run-cuda-tests.sh runs all four)
// fp8 runs every check of bf16 (its storage), the linear layers against the same arithmetic on the cpu with inputs
// and weights rounded to E4M3 (src/fp8.ts), and the quantisation kernels byte for byte against src/fp8.ts.
// Prints one line per case and ends with "N passed, M failed"; exits 1 on any failure.
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { calibrateQuantisation, embedding, readFloats, inModelBlock, inRefinementPrecision, geglu, halfToFloat, layerNorm, linear, packedAttention, packedLayout, rotaryQkv, segmentMean, type Precision } from '@virnucpro/ops';
import { float32ToFloat16Bits, halfBitsToNumber } from '@virnucpro/weights';
import { setCudaBackendOptions, type CudaBackend } from '../src/index.js';
import '../src/index.js'; // registers the cuda backend (the line above is types only)
import { e4m3ToNumber, numberToE4M3, quantizeE4M3 } from '../src/fp8.js';
import { fp8CorrectedBias } from '../src/fp8-bias-correction.js';
import { fp8SequenceCorrection } from '../src/fp8-sequence-correction.js';
import { attentionFp8OutputScale, columnL2Norms, geluFp8OutputScale, layerNormFp8Bounds } from '../src/fp8-static-scales.js';
import { fp8Source, ROW_WORDS_PER_THREAD } from '../src/cuda/fp8.js';
import { quantizeRowsLaunch } from '../src/fp8-quantize-rows.js';
import { bytesPerElement, elementsPerWord, floatStorage } from '../src/precision.js';
import { tunedGemmKeys } from '../src/gemm-algo-table.js';
import { PLAN_CACHE_SIZE } from '../src/cublaslt.js';

const { values: args } = parseArgs({ options: { precision: { type: 'string', default: 'fp32' } } });
const precision = args.precision as Precision;
// Largest |cuda − reference| allowed, relative to the reference's largest |value|. Inputs are rounded to the
// storage type first, so both sides see the same values and the difference is the kernels' own (fp32 math
// throughout, outputs and softmax probabilities rounded to the storage type).
const tolerances: Partial<Record<Precision, number>> = { fp32: 2e-5, fp16: 3e-3, bf16: 2.5e-2, fp8: 2.5e-2 };
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
/** cuda's `build` against cpu's `reference()` (default the same build), asked for after the cuda run. */
async function check(name: string, build: () => tf.Tensor, tol = tolerance, reference?: () => { build: () => tf.Tensor; tol: number }): Promise<void> {
  const started = performance.now();
  try {
    const got = await run('cuda', build);
    const ref = reference?.() ?? { build, tol };
    tol = ref.tol;
    const want = await run('cpu', ref.build);
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

// Started as any tfjs program starts it (in the CLI @virnucpro/compute does this): options, then setBackend.
setCudaBackendOptions({ precision });
if (!(await tf.setBackend('cuda'))) throw new Error("tf.setBackend('cuda') failed");
const backend = tf.getBackend();
const cuda = tf.backend() as CudaBackend;

/** Rows (or, perColumn, the columns) of a row-major matrix rounded to E4M3 with their own scales, as fp32 values. */
function e4m3Rounded(values: Float32Array, rows: number, cols: number, perColumn = false): Float32Array {
  const out = new Float32Array(values.length);
  const lines = perColumn ? cols : rows;
  const length = perColumn ? rows : cols;
  const at = (line: number, j: number) => (perColumn ? j * cols + line : line * cols + j);
  const picked = new Float32Array(length);
  for (let line = 0; line < lines; line++) {
    for (let j = 0; j < length; j++) picked[j] = values[at(line, j)];
    const { bits, scale } = quantizeE4M3(picked);
    for (let j = 0; j < length; j++) out[at(line, j)] = Math.fround(e4m3ToNumber(bits[j]) * scale);
  }
  return out;
}

/** Values rounded to E4M3 with one given scale (static scales), as fp32 values. */
function e4m3RoundedWith(values: Float32Array, scale: number): Float32Array {
  return Float32Array.from(values, (v) => Math.fround(e4m3ToNumber(numberToE4M3(Math.fround(v / scale))) * scale));
}

/** Reads `count` fp32 values at a device address. */
function deviceFloats(ptr: number, count: number): Float32Array {
  const out = new Float32Array(count);
  cuda.driver.copyDtoH(out, ptr, count * 4, cuda.stream);
  cuda.driver.synchronize(cuda.stream);
  return out;
}

/**
 * A linear layer's check. fp8: against the cpu computing on E4M3-rounded x (per row) and W (per output channel),
 * and with fc1's GELU output rounded per row as the cuda kernel leaves it, when cuda ran the shape as an FP8 GEMM.
 */
async function checkLinear(name: string, [n, i, o]: number[], x: Float32Array, w: Float32Array, b: Float32Array | undefined, options: { activation?: 'gelu'; residual?: Float32Array } = {}): Promise<void> {
  const build = (xv: Float32Array, wv: Float32Array) => () => linear(tf.tensor2d(xv, [n, i]), tf.tensor2d(wv, [i, o]), b && tf.tensor1d(b),
    { ...(options.activation ? { activation: options.activation } : {}), ...(options.residual ? { residual: tf.tensor2d(options.residual, [n, o]) } : {}) });
  if (precision !== 'fp8') return check(name, build(x, w));
  return check(`${name} fp8`, build(x, w), tolerance, () => {
    const key = `${n}:${i}:${o}:${b !== undefined}:${options.residual !== undefined && !options.activation}`;
    const mode = cuda.describe().fp8?.gemms[key];
    const reference = mode === undefined || mode === 'bf16' ? build(x, w) : build(e4m3Rounded(x, n, i), e4m3Rounded(w, i, o, true));
    // fc1's output is rounded to E4M3 per row (for an fc2 in fp8): a bf16 rounding of the GEMM output can move a value
    // across an E4M3 rounding boundary (one E4M3 step, ≤ 2⁻⁴ of a row's largest value), hence the wider tolerance.
    if (options.activation && !options.residual && o % 16 === 0) {
      return { build: () => { const y = reference(); return tf.tensor2d(e4m3Rounded(y.dataSync() as Float32Array, n, o), [n, o]); }, tol: 0.075 };
    }
    return { build: reference, tol: tolerance };
  });
}
/**
 * fp8 with static scales: y = linear(layerNorm(x), W, b) (GELU: fc1, writing its E4M3 rows) against the cpu on the
 * layer norm's output and W rounded to E4M3 with one scale each, and fc1's output rounded with its static scale
 * (fp8-static-scales.ts), as far as describe().fp8.tensorGemms says the GEMM ran so.
 */
async function checkStaticLinear(name: string, [n, i, o]: number[], x: Float32Array, w: Float32Array, b: Float32Array | undefined, gelu: boolean): Promise<void> {
  const g = random(i, 0.5, 1.5); const be = random(i, -0.2, 0.2);
  const build = (round: { norm: number; weight: number; out?: number } | undefined) => () => {
    const a = layerNorm(tf.tensor2d(x, [n, i]), tf.tensor1d(g), tf.tensor1d(be), 1e-5);
    const a8 = round ? tf.tensor2d(e4m3RoundedWith(a.dataSync() as Float32Array, round.norm), [n, i]) : a;
    const y = linear(a8, tf.tensor2d(round ? e4m3RoundedWith(w, round.weight) : w, [i, o]), b && tf.tensor1d(b), gelu ? { activation: 'gelu' } : {});
    return round?.out ? tf.tensor2d(e4m3RoundedWith(y.dataSync() as Float32Array, round.out), [n, o]) : y;
  };
  await check(`${name} fp8`, build(undefined), tolerance, () => {
    const ran = (cuda.describe().fp8?.tensorGemms ?? {})[`${n}:${i}:${o}:${b !== undefined}:false`];
    if (!ran) return { build: build(undefined), tol: Number.NaN }; // not run with per-tensor scales: fails, saying so
    const norm = layerNormFp8Bounds(g, be);
    const weight = quantizeE4M3(w).scale;
    const out = ran === 'tensor→e4m3' ? geluFp8OutputScale(columnL2Norms(w, i, o), b, i, weight, norm.l2) : undefined;
    // fc1's output rounded to E4M3 on both sides from values apart by the tanh/erf GELU (see checkLinear): a value
    // rounded one step apart differs by up to 2⁻³ of itself, and with a static scale the largest value need not sit
    // at 448 (where per-row scales put it, and one step is 2⁻⁴·448 / 448 ≈ 0.07): one step of the largest is ≤ 0.125.
    return { build: build({ norm: norm.scale, weight, out }), tol: out ? 0.13 : tolerance };
  });
  if ((cuda.describe().fp8?.tensorGemms ?? {})[`${n}:${i}:${o}:${b !== undefined}:false`] === 'tensor→e4m3') {
    const norm = layerNormFp8Bounds(g, be);
    const weight = quantizeE4M3(w).scale;
    await checkE4M3OutputBias(name, build, norm, weight, geluFp8OutputScale(columnL2Norms(w, i, o), b, i, weight, norm.l2));
  }
}

/**
 * Whether cuBLASLt's E4M3 output rounds to nearest (as our kernels do) or leans one way: Σ (got − exact)·sign(exact)
 * / Σ |exact| over the outputs, against the same of the cpu's round-to-nearest from the exact values (both ≈ 0 when
 * unbiased; rounding toward zero would give about −3 % here). A lean shifts every later layer the same way, which
 * a cosine hardly sees but a classifier's scores do (predict-gpu.md: fp8 labels, static against per-row scales).
 */
async function checkE4M3OutputBias(name: string, build: (round: { norm: number; weight: number; out?: number } | undefined) => () => tf.Tensor, norm: { scale: number }, weight: number, out: number): Promise<void> {
  const got = await run('cuda', build(undefined));
  const exact = await run('cpu', build({ norm: norm.scale, weight }));
  const nearest = e4m3RoundedWith(exact, out);
  const lean = (values: Float32Array) => {
    let signed = 0;
    let total = 0;
    exact.forEach((e, k) => { signed += (values[k] - e) * Math.sign(e); total += Math.abs(e); });
    return signed / total;
  };
  const [gpu, cpu] = [lean(got), lean(nearest)];
  const ok = Math.abs(gpu - cpu) <= 0.004;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name} fp8: E4M3 output's lean ${(gpu * 100).toFixed(3)} % of |exact| (cpu round to nearest ${(cpu * 100).toFixed(3)} %)`);
  if (ok) passed++; else failed++;
}

console.log(`backend ${backend}, precision ${precision}`);

// Linear: bias, GELU epilogue, fused residual.
// 3×45: an output size no 16-byte word divides (the scalar GELU); the others take the vectorised one.
for (const [n, i, o] of [[1, 64, 48], [3, 40, 45], [7, 96, 160], [300, 256, 512], [4099, 64, 3 * 64]]) {
  const x = random(n * i); const w = random(i * o, -0.2, 0.2); const b = random(o); const r = random(n * o);
  const shape = [n, i, o];
  await checkLinear(`linear ${n}×${i}·${i}×${o} +bias`, shape, x, w, b);
  await checkLinear(`linear ${n}×${i}·${i}×${o} no bias`, shape, x, w, undefined);
  await checkLinear(`linear ${n}×${i}·${i}×${o} +bias gelu`, shape, x, w, b, { activation: 'gelu' });
  await checkLinear(`linear ${n}×${i}·${i}×${o} +bias +residual`, shape, x, w, b, { residual: r });
  await checkLinear(`linear ${n}×${i}·${i}×${o} gelu +residual`, shape, x, w, b, { activation: 'gelu', residual: r });
}

// The GEMMs with a measured cuBLASLt configuration (gemm-algo-table.ts) at their real widths: the configuration must
// be the one pinned on a GPU of the table's architecture (else cuBLASLt refused it and the run is silently slower),
// and its results must match the cpu like any other algorithm's.
{
  const storage = precision === 'fp8' ? 'fp8' : floatStorage(precision);
  const arch = cuda.describe().arch;
  const keys = tunedGemmKeys(arch).filter((k) => k.storage === storage);
  for (const key of keys) {
    const n = 64;
    const x = random(n * key.inner); const w = random(key.inner * key.cols, -0.05, 0.05); const b = key.bias ? random(key.cols) : undefined;
    const before = cuda.tunedGemms.size;
    const name = `linear ${n}×${key.inner}·${key.inner}×${key.cols}${key.bias ? ' +bias' : ''}${key.gelu ? ' gelu' : ''}${key.scales ? ` ${key.scales} scales` : ''}${key.fp8Out ? ' → e4m3' : ''} (measured cuBLASLt configuration)`;
    // Per-tensor scales are taken on a layer norm's static rows only: the input comes through one.
    if (key.scales === 'tensor') await checkStaticLinear(name, [n, key.inner, key.cols], x, w, b, key.gelu);
    else await checkLinear(name, [n, key.inner, key.cols], x, w, b, key.gelu ? { activation: 'gelu' } : {});
    const pinned = cuda.tunedGemms.size > before;
    console.log(`${pinned ? 'ok  ' : 'FAIL'} ${key.inner}→${key.cols}: the measured configuration ${pinned ? 'is' : 'is NOT'} the pinned algorithm on ${arch}`);
    if (pinned) passed++; else failed++;
  }
  console.log(`measured cuBLASLt configurations for ${arch} ${storage}: ${keys.length}`);
}

if (precision === 'fp8') {
  // The quantisation kernels byte for byte against src/fp8.ts: rows (16-byte words and not), a zero row, weights.
  for (const [n, d] of [[5, 64], [3, 45], [2, 2560]]) {
    const x = random(n * d, -3, 3);
    x.fill(0, d, 2 * d);
    const t = tf.tensor2d(x, [n, d]);
    const rows = cuda.fp8Rows({ dataId: t.dataId, shape: [n, d], dtype: 'float32' });
    const weight = cuda.fp8Weight({ dataId: t.dataId, shape: [n, d], dtype: 'float32' }); // as W [inner = n, cols = d]
    const bytes = new Uint8Array(n * d); const scales = new Float32Array(n);
    const wBytes = new Uint8Array(n * d); const wScales = new Float32Array(d);
    cuda.driver.copyDtoH(bytes, rows.data, n * d, cuda.stream);
    cuda.driver.copyDtoH(scales, rows.scales, n * 4, cuda.stream);
    cuda.driver.copyDtoH(wBytes, weight.data, n * d, cuda.stream);
    cuda.driver.copyDtoH(wScales, weight.scales, d * 4, cuda.stream);
    cuda.driver.synchronize(cuda.stream);
    t.dispose();
    let bad = 0;
    for (let r = 0; r < n; r++) {
      const want = quantizeE4M3(x.subarray(r * d, (r + 1) * d));
      if (want.scale !== scales[r]) bad++;
      want.bits.forEach((q, j) => { if (bytes[r * d + j] !== q) bad++; });
    }
    for (let c = 0; c < d; c++) {
      const want = quantizeE4M3(Array.from({ length: n }, (_, k) => x[k * d + c]));
      if (want.scale !== wScales[c]) bad++;
      want.bits.forEach((q, k) => { if (wBytes[c * n + k] !== q) bad++; });
    }
    console.log(`${bad === 0 ? 'ok  ' : 'FAIL'} fp8 quantisation ${n}×${d}: rows and weight channels as src/fp8.ts (${bad} bytes or scales differ)`);
    if (bad === 0) passed++; else failed++;
  }
  // The row quantisation kept in registers (*_regs, row read and finished once) against the kernels that read each
  // row twice: the same bytes and scales, with and without fc1's bias + GELU, up to the longest row it takes. Rows of
  // several magnitudes: the registers kernels divide by Markstein's sequence where a row's scale lies in [2^-60, 2^60]
  // and by __fdiv_rn outside it, as the other kernels always do.
  const magnitudes = [1, 2 ** -70, 2 ** -58, 2 ** 58, 2 ** 70];
  for (const [n, d] of [[37, 10240], [5, 2560], [3, 64], [9, 264], [1, 16 * ROW_WORDS_PER_THREAD * 1024 / bytesPerElement(cuda.floatStorage)]]) {
    for (const gelu of [false, true]) {
      const x = tf.tensor2d(random(n * d, -4, 4).map((v, i) => v * magnitudes[Math.floor(i / d) % magnitudes.length]), [n, d]);
      const bias = tf.tensor1d(random(d));
      const outs = [false, true].map((inRegisters) => {
        const plan = quantizeRowsLaunch(d, elementsPerWord(cuda.floatStorage), { gelu, inRegisters });
        const holder = tf.zeros([n, d]);
        const q = cuda.attachFp8(holder, n, d, 'pass');
        cuda.launch(fp8Source, plan.kernel, [], [n, 1, 1], plan.block, 0, 'pppippp', cuda.ptr(x), q.data, q.scales, d, gelu ? cuda.ptr(bias) : 0, 0, 0);
        const bytes = new Uint8Array(n * d); const scales = new Float32Array(n);
        cuda.driver.copyDtoH(bytes, q.data, n * d, cuda.stream);
        cuda.driver.copyDtoH(scales, q.scales, n * 4, cuda.stream);
        cuda.driver.synchronize(cuda.stream);
        holder.dispose();
        return { kernel: plan.kernel, bytes, scales };
      });
      x.dispose(); bias.dispose();
      const [reread, regs] = outs;
      let bad = 0;
      reread.bytes.forEach((b, i) => { if (regs.bytes[i] !== b) bad++; });
      reread.scales.forEach((v, i) => { if (regs.scales[i] !== v) bad++; });
      const ran = regs.kernel.endsWith('_regs');
      console.log(`${bad === 0 && ran ? 'ok  ' : 'FAIL'} fp8 rows ${n}×${d}${gelu ? ' +bias gelu' : ''}: ${regs.kernel} as ${reread.kernel} (${bad} bytes or scales differ${ran ? '' : '; the registers kernel did not run'})`);
      if (bad === 0 && ran) passed++; else failed++;
    }
  }
  // GeGLU writing its output's fp8 rows in the same pass (geglu_quantize_rows_regs) against GeGLU then a row pass:
  // the same bytes and scales, at DNABERT-S's width, a small one, the longest row it takes, and a width it leaves apart.
  await tf.setBackend('cuda'); // the last check() left cpu active, and geglu() runs on the active backend
  const gegluFusedSetting = cuda.fp8GegluFused;
  for (const [n, f] of [[37, 3072], [5, 64], [1, 16 * ROW_WORDS_PER_THREAD * 1024 / bytesPerElement(cuda.floatStorage)], [3, 40]]) {
    const x = tf.tensor2d(random(n * 2 * f, -4, 4), [n, 2 * f]);
    const outs = [false, true].map((fusedOn) => {
      cuda.fp8GegluFused = fusedOn;
      const y = geglu(x);
      const info = { dataId: y.dataId, shape: [n, f], dtype: 'float32' as const };
      const source = cuda.fp8SourceOf(info, f) ?? 'none';
      const q = cuda.fp8Rows(info);
      const bytes = new Uint8Array(n * f); const scales = new Float32Array(n);
      cuda.driver.copyDtoH(bytes, q.data, n * f, cuda.stream);
      cuda.driver.copyDtoH(scales, q.scales, n * 4, cuda.stream);
      cuda.driver.synchronize(cuda.stream);
      y.dispose();
      return { source, bytes, scales };
    });
    cuda.fp8GegluFused = gegluFusedSetting;
    x.dispose();
    const [apart, fused] = outs;
    let bad = 0;
    apart.bytes.forEach((b, i) => { if (fused.bytes[i] !== b) bad++; });
    apart.scales.forEach((v, i) => { if (fused.scales[i] !== v) bad++; });
    const expectFused = f % 16 === 0;
    const ran = (fused.source === 'gelu') === expectFused && apart.source === 'none';
    console.log(`${bad === 0 && ran ? 'ok  ' : 'FAIL'} fp8 geglu rows ${n}×${f}: ${expectFused ? 'fused' : 'apart'} as GeGLU then a row pass (${bad} bytes or scales differ; fused kernel ${fused.source === 'gelu' ? 'ran' : 'did not run'})`);
    if (bad === 0 && ran) passed++; else failed++;
  }
  // Static scales (fp8-static-scales.ts): a layer norm's bounds and fc1's GELU output scale from the weights, and a
  // weight quantised with one scale, against the cpu arithmetic (the scale equal, the 2-norm bounds within fp32 sums
  // in another order), at ESM-2 3B's, DNABERT-S's and a small width.
  await tf.setBackend('cuda');
  for (const [d, f] of [[2560, 10240], [768, 3072], [64, 48]]) {
    const g = random(d, -1.5, 1.5); const be = random(d, -0.5, 0.5); const w = random(d * f, -0.05, 0.05); const b = random(f);
    const [gt, bt, wt, bit] = [tf.tensor1d(g), tf.tensor1d(be), tf.tensor2d(w, [d, f]), tf.tensor1d(b)];
    const bounds = cuda.fp8NormBounds(gt, bt);
    const w8 = cuda.fp8Weight(wt, 'tensor');
    const gelu = cuda.fp8OutputScales(wt, bit, bounds, 'gelu');
    const [gotScale, gotL2] = deviceFloats(bounds, 2);
    const [, gotGelu, gotInverse] = deviceFloats(gelu, 3);
    const [gotWeightScale] = deviceFloats(w8.scales, 1);
    const wBytes = new Uint8Array(d * f);
    cuda.driver.copyDtoH(wBytes, w8.data, d * f, cuda.stream);
    cuda.driver.synchronize(cuda.stream);
    [gt, bt, wt, bit].forEach((t) => t.dispose());
    const want = layerNormFp8Bounds(g, be);
    const wantWeight = quantizeE4M3(w);
    const wantGelu = geluFp8OutputScale(columnL2Norms(w, d, f), b, d, wantWeight.scale, gotL2);
    let badBytes = 0;
    for (let c = 0; c < f; c++) for (let k = 0; k < d; k++) if (wBytes[c * d + k] !== wantWeight.bits[k * f + c]) badBytes++;
    const close = (a: number, e: number) => Math.abs(a - e) <= 1e-5 * Math.abs(e);
    const ok = gotScale === want.scale && close(gotL2, want.l2) && gotWeightScale === wantWeight.scale && badBytes === 0 && close(gotGelu, wantGelu) && gotInverse === Math.fround(1 / gotGelu);
    console.log(`${ok ? 'ok  ' : 'FAIL'} fp8 static scales d ${d}, f ${f}: layer norm scale ${gotScale} (cpu ${want.scale}), 2-norm bound ${gotL2} (cpu ${want.l2}); weight scale ${gotWeightScale} (cpu ${wantWeight.scale}), ${badBytes} weight bytes differ; GELU output scale ${gotGelu} (cpu ${wantGelu}), 1/scale ${gotInverse}`);
    if (ok) passed++; else failed++;
  }
  // A block's chain: layer norm (writes fp8 rows) → fc1 + GELU (writes fc2's fp8 rows) → fc2 + residual.
  {
    const [n, d, f] = [37, 256, 1024];
    const x = random(n * d, -2, 2); const g = random(d, 0.5, 1.5); const be = random(d);
    const w1 = random(d * f, -0.1, 0.1); const b1 = random(f); const w2 = random(f * d, -0.05, 0.05); const b2 = random(d);
    const cudaChain = () => {
      const h = tf.tensor2d(x, [n, d]);
      const a = layerNorm(h, tf.tensor1d(g), tf.tensor1d(be), 1e-5);
      return linear(linear(a, tf.tensor2d(w1, [d, f]), tf.tensor1d(b1), { activation: 'gelu' }), tf.tensor2d(w2, [f, d]), tf.tensor1d(b2), { residual: h });
    };
    // The cpu side rounds what the cuda side ran in fp8 (per the GEMM modes it recorded and the layers kept bf16).
    const chainReference = () => {
      const gemms = cuda.describe().fp8?.gemms ?? {};
      const fc1Fp8 = ![undefined, 'bf16'].includes(gemms[`${n}:${d}:${f}:true:false`]) && !cuda.fp8Bf16Layers.has('fc1');
      const fc2Fp8 = ![undefined, 'bf16'].includes(gemms[`${n}:${f}:${d}:true:true`]) && !cuda.fp8Bf16Layers.has('fc2');
      const geluFp8 = !cuda.fp8Bf16Layers.has('fc2');
      // With static scales (describe().fp8.tensorGemms): the layer norm's rows and fc1's weight with one scale each,
      // and fc1's GELU output, when fc1 wrote it as E4M3, with the static scale of its weights.
      const tensorFc1 = cuda.fp8StaticScales ? (cuda.describe().fp8?.tensorGemms ?? {})[`${n}:${d}:${f}:true:false`] : undefined;
      const normBounds = layerNormFp8Bounds(g, be);
      const w1Tensor = quantizeE4M3(w1).scale;
      const geluScale = geluFp8OutputScale(columnL2Norms(w1, d, f), b1, d, w1Tensor, normBounds.l2);
      return {
        build: () => {
          const h = tf.tensor2d(x, [n, d]);
          const a = layerNorm(h, tf.tensor1d(g), tf.tensor1d(be), 1e-5);
          const av = a.dataSync() as Float32Array;
          const a8 = !fc1Fp8 ? a : tf.tensor2d(tensorFc1 ? e4m3RoundedWith(av, normBounds.scale) : e4m3Rounded(av, n, d), [n, d]);
          const w1v = !fc1Fp8 ? w1 : tensorFc1 ? e4m3RoundedWith(w1, w1Tensor) : e4m3Rounded(w1, d, f, true);
          const u = linear(a8, tf.tensor2d(w1v, [d, f]), tf.tensor1d(b1), { activation: 'gelu' });
          const uv = u.dataSync() as Float32Array;
          const u8 = geluFp8 ? tf.tensor2d(tensorFc1 === 'tensor→e4m3' ? e4m3RoundedWith(uv, geluScale) : e4m3Rounded(uv, n, f), [n, f]) : u;
          return linear(u8, tf.tensor2d(fc2Fp8 ? e4m3Rounded(w2, f, d, true) : w2, [f, d]), tf.tensor1d(b2), { residual: h });
        },
        // fc1's output rounded to E4M3 on both sides from values one bf16 rounding apart: see checkLinear.
        tol: geluFp8 ? 0.075 : tolerance,
      };
    };
    for (const staticScales of [true, false]) {
      const setting = cuda.fp8StaticScales;
      cuda.fp8StaticScales = staticScales;
      await check(`fp8 chain layerNorm → fc1 gelu → fc2 +residual, ${staticScales ? 'static' : 'per-row'} scales`, cudaChain, tolerance, chainReference);
      cuda.fp8StaticScales = setting;
    }
    console.log(`fp8 GEMMs: ${JSON.stringify(cuda.describe().fp8)}`);
  }
  // A layer norm whose output only linear layers read (linearInputOnly: ESM-2's pre-norms) writes its E4M3 rows and no
  // T (fp8NormRowsOnly): fc1 on it gives the same bytes as when T is written too, and the norm's values, if read, are
  // its E4M3 rows with the static scale (made from them on first read).
  {
    const [n, d, f] = [37, 256, 1024];
    const x = random(n * d, -2, 2); const g = random(d, 0.5, 1.5); const be = random(d);
    const w1 = random(d * f, -0.1, 0.1); const b1 = random(f);
    const norm = (only: boolean) => layerNorm(tf.tensor2d(x, [n, d]), tf.tensor1d(g), tf.tensor1d(be), 1e-5, { linearInputOnly: only });
    const fc1 = (only: boolean) => () => linear(norm(only), tf.tensor2d(w1, [d, f]), tf.tensor1d(b1), { activation: 'gelu' });
    const rowsOnly = cuda.describe().fp8?.normRowsOnly === true;
    const [only, both] = [await run('cuda', fc1(true)), await run('cuda', fc1(false))];
    const differ = only.reduce((count, v, i) => count + (Object.is(v, both[i]) ? 0 : 1), 0);
    // Read back, the norm's values are its E4M3 rows (3 mantissa bits), not T: most differ from T's.
    const [readOnly, readBoth] = [await run('cuda', () => norm(true)), await run('cuda', () => norm(false))];
    const fromRows = readOnly.reduce((count, v, i) => count + (Object.is(v, readBoth[i]) ? 0 : 1), 0);
    const ok = rowsOnly && differ === 0 && fromRows > readOnly.length / 2;
    console.log(`${ok ? 'ok  ' : 'FAIL'} fp8 layer norm → fc1, linear input only: ${differ} of ${only.length} values differ from T written too (rows only ${rowsOnly}); the norm read back: ${fromRows} of ${readOnly.length} values differ from T`);
    if (ok) passed++; else failed++;
    await check('fp8 layer norm, linear input only: read back as its E4M3 rows', () => norm(true), tolerance, () => ({
      build: () => tf.tensor2d(e4m3RoundedWith(norm(false).dataSync() as Float32Array, layerNormFp8Bounds(g, be).scale), [n, d]),
      // Rounded to E4M3 on both sides from values one fp32 rounding apart: one step of the largest (see checkStaticLinear).
      tol: 0.13,
    }));
  }
  // Packed attention writing `out`'s E4M3 rows with the static scale of qkv's value columns (fp8StaticAttention):
  // that scale against the cpu arithmetic; then layer norm → qkv → attention (its rows read back) and → out
  // +residual (out's weight per channel), against the cpu with every fp8 rounding in the same place, at ESM-2 3B's
  // head size (without rotary: the output's arithmetic is the same) and with DNABERT-S's ALiBi.
  for (const alibi of [false, true]) {
    const lengths = [37, 1, 64, 100, 5, 130];
    const [H, hd] = [4, 64];
    const d = H * hd; const n = lengths.reduce((a, b) => a + b, 0);
    const x = random(n * d, -2, 2); const g = random(d, 0.5, 1.5); const be = random(d, -0.2, 0.2);
    const wq = random(d * 3 * d, -0.1, 0.1); const bq = random(3 * d); const wo = random(d * d, -0.1, 0.1); const bo = random(d);
    const slopes = alibi ? { alibiSlopes: Float32Array.from({ length: H }, (_, h) => 2 ** (-(h + 1) / 2)) } : {};
    const block = (upTo: 'attention' | 'out', round?: { norm: number; wq: number; attention: number }) => () => {
      const layout = packedLayout(lengths);
      try {
        const h = tf.tensor2d(x, [n, d]);
        const a = layerNorm(h, tf.tensor1d(g), tf.tensor1d(be), 1e-5);
        const a8 = round ? tf.tensor2d(e4m3RoundedWith(a.dataSync() as Float32Array, round.norm), [n, d]) : a;
        const qkv = linear(a8, tf.tensor2d(round ? e4m3RoundedWith(wq, round.wq) : wq, [d, 3 * d]), tf.tensor1d(bq));
        const o = packedAttention(qkv, layout, { numHeads: H, scale: 0.125, ...slopes });
        const o8 = round ? tf.tensor2d(e4m3RoundedWith(o.dataSync() as Float32Array, round.attention), [n, d]) : o;
        return upTo === 'attention' ? o8 : linear(o8, tf.tensor2d(round ? e4m3Rounded(wo, d, d, true) : wo, [d, d]), tf.tensor1d(bo), { residual: h });
      } finally {
        layout.dispose();
      }
    };
    const [gt, bt, wt, bit] = [tf.tensor1d(g), tf.tensor1d(be), tf.tensor2d(wq, [d, 3 * d]), tf.tensor1d(bq)];
    const bounds = cuda.fp8NormBounds(gt, bt);
    const [, gotL2] = deviceFloats(bounds, 2);
    const [, gotScale, gotInverse] = deviceFloats(cuda.fp8OutputScales(wt, bit, bounds, 'attention'), 3);
    [gt, bt, wt, bit].forEach((t) => t.dispose());
    const wantScale = attentionFp8OutputScale(columnL2Norms(wq, d, 3 * d), bq, d, quantizeE4M3(wq).scale, gotL2);
    const scaleOk = Math.abs(gotScale - wantScale) <= 1e-5 * wantScale && gotInverse === Math.fround(1 / gotScale);
    console.log(`${scaleOk ? 'ok  ' : 'FAIL'} fp8 attention output scale d ${d}: ${gotScale} (cpu ${wantScale}), 1/scale ${gotInverse}`);
    if (scaleOk) passed++; else failed++;
    const reference = (upTo: 'attention' | 'out') => () => {
      const fp8 = cuda.describe().fp8;
      const qkvTensor = (fp8?.tensorGemms ?? {})[`${n}:${d}:${3 * d}:true:false`] === 'tensor';
      const outFp8 = !['bf16', undefined].includes(fp8?.gemms[`${n}:${d}:${d}:true:true`]);
      // Not run so (static attention off, qkv refused per-tensor scales, out not in fp8): fails, saying so.
      if (!fp8?.staticAttention || !qkvTensor || (upTo === 'out' && !outFp8)) {
        const ran = (table: Record<string, string>) => Object.entries(table).filter(([k]) => k.startsWith(`${n}:`));
        console.log(`  not run with static scales: staticAttention ${fp8?.staticAttention}, per-tensor GEMMs ${JSON.stringify(ran(fp8?.tensorGemms ?? {}))}, others ${JSON.stringify(ran(fp8?.gemms ?? {}))}`);
        return { build: block(upTo), tol: Number.NaN };
      }
      const round = { norm: layerNormFp8Bounds(g, be).scale, wq: quantizeE4M3(wq).scale, attention: gotScale };
      // E4M3 rounding on both sides from values one bf16 rounding apart: one step of the largest value (see
      // checkStaticLinear) at the attention, a few such steps averaged by out's sums after it.
      return { build: block(upTo, round), tol: upTo === 'attention' ? 0.13 : 0.075 };
    };
    await check(`fp8 static attention${alibi ? ' ALiBi' : ''} ${lengths.length} segments H ${H} hd ${hd}: E4M3 rows read back`, block('attention'), tolerance, reference('attention'));
    await check(`fp8 static attention${alibi ? ' ALiBi' : ''}: → out +residual`, block('out'), tolerance, reference('out'));
  }
  // Bias correction (fp8-bias-correction.ts): a calibration pass over x records its mean row; the corrected bias
  // against the cpu arithmetic (per channel and per tensor), and the FP8 GEMM's mean output row against the exact
  // one, with and without the correction (inputs with a large common component, as a model's are).
  {
    const [n, d, f] = [96, 512, 384];
    const x = random(n * d, 0.2, 1.8); const w = random(d * f, -0.05, 0.05); const b = random(f, -0.1, 0.1);
    await tf.setBackend('cuda');
    const [xt, wt, bt] = [tf.tensor2d(x, [n, d]), tf.tensor2d(w, [d, f]), tf.tensor1d(b)];
    const ran = await calibrateQuantisation(async () => {
      const y = tf.tidy(() => linear(xt, wt, bt));
      await y.data();
      y.dispose();
    });
    const mean = new Float64Array(d);
    for (let r = 0; r < n; r++) for (let k = 0; k < d; k++) mean[k] += x[r * d + k] / n;
    for (const scales of ['rows', 'tensor'] as const) {
      const info = cuda.fp8CorrectedBias(wt, bt, scales);
      const got = info && info.dataId !== bt.dataId ? (cuda.readSync(info.dataId) as Float32Array) : undefined;
      const want = fp8CorrectedBias(w, d, f, mean, b, scales === 'tensor');
      let maxErr = 0; let maxShift = 0;
      want.forEach((v, c) => { maxErr = Math.max(maxErr, Math.abs((got?.[c] ?? NaN) - v)); maxShift = Math.max(maxShift, Math.abs(v - b[c])); });
      // bf16 rounding of the result (2⁻⁹ of |b'| ≤ 0.15) and fp32 sums in another order; the shift is what is checked.
      const ok = ran && got !== undefined && maxErr <= 1e-3 && maxShift > 10 * maxErr;
      console.log(`${ok ? 'ok  ' : 'FAIL'} fp8 bias correction ${d}→${f} (${scales}): corrected bias within ${maxErr.toExponential(2)} of the cpu's, which moves it by up to ${maxShift.toExponential(2)} (calibrated: ${ran})`);
      if (ok) passed++; else failed++;
    }
    const exactMean = new Float64Array(f);
    for (let k = 0; k < d; k++) for (let c = 0; c < f; c++) exactMean[c] += mean[k] * w[k * f + c];
    const meanError = async () => {
      const y = await run('cuda', () => linear(xt, wt, bt));
      let sq = 0;
      for (let c = 0; c < f; c++) {
        let m = 0;
        for (let r = 0; r < n; r++) m += y[r * f + c] / n;
        sq += (m - exactMean[c] - b[c]) ** 2;
      }
      return Math.sqrt(sq / f);
    };
    const corrected = await meanError();
    cuda.fp8BiasCorrection = false;
    const plain = await meanError();
    cuda.fp8BiasCorrection = true;
    await tf.setBackend('cuda');
    [xt, wt, bt].forEach((t) => t.dispose());
    const ok = corrected < 0.5 * plain;
    console.log(`${ok ? 'ok  ' : 'FAIL'} fp8 bias correction ${d}→${f}: the mean output row's RMS error to the exact one ${corrected.toExponential(2)} corrected, ${plain.toExponential(2)} plain`);
    if (ok) passed++; else failed++;
  }
  // Per-sequence correction (fp8-sequence-correction.ts): a linear layer told its rows' sequences takes each
  // sequence's x̄_s·(Q(W) − W) off its rows. Against the cpu arithmetic (on x before its E4M3 rounding, so within a
  // few per cent of the correction plus the output's two bf16 roundings), each sequence's mean output row against
  // the exact one with and without, and a sequence alone against the same sequence packed after others (bits).
  {
    const lengths = [5, 1, 40, 50];
    const [n, d, f] = [96, 512, 384];
    const offsets = [0, 5, 6, 46, 96];
    // Each sequence's rows share an offset of their own (as a model's residual streams do).
    const shift = random(4 * d, -1, 2);
    const x = random(n * d, -0.5, 0.5).map((v, i) => v + shift[offsets.findIndex((o, s) => Math.floor(i / d) >= o && Math.floor(i / d) < offsets[s + 1]) * d + (i % d)]);
    const w = random(d * f, -0.05, 0.05); const b = random(f, -0.1, 0.1);
    await tf.setBackend('cuda');
    const [xt, wt, bt] = [tf.tensor2d(toStorage(x), [n, d]), tf.tensor2d(w, [d, f]), tf.tensor1d(b)];
    const layout = packedLayout(lengths);
    const alone = packedLayout([50]);
    void [layout.offsetsTensor, alone.offsetsTensor]; // made here, outside run()'s leak count
    const correcting = cuda.fp8SequenceCorrection;
    cuda.fp8SequenceCorrection = true; // off by default ($VIRNUCPRO_FP8_SEQUENCE_CORRECTION=1)
    const corrected = await run('cuda', () => linear(xt, wt, bt, { segments: layout }));
    const lastAlone = await run('cuda', () => linear(tf.slice(xt, [46, 0], [50, d]) as tf.Tensor2D, wt, bt, { segments: alone }));
    cuda.fp8SequenceCorrection = false;
    const plain = await run('cuda', () => linear(xt, wt, bt, { segments: layout }));
    cuda.fp8SequenceCorrection = correcting;
    await tf.setBackend('cuda');
    [xt, wt, bt].forEach((t) => t.dispose());
    layout.dispose(); alone.dispose();
    const want = fp8SequenceCorrection(x, offsets, w, d, f, false);
    let maxErr = 0; let maxCorr = 0; let maxY = 0;
    for (let r = 0; r < n; r++) {
      const s = offsets.findIndex((o, j) => r >= o && r < offsets[j + 1]);
      for (let c = 0; c < f; c++) {
        maxErr = Math.max(maxErr, Math.abs(corrected[r * f + c] - plain[r * f + c] - want[s * f + c]));
        maxCorr = Math.max(maxCorr, Math.abs(want[s * f + c]));
        maxY = Math.max(maxY, Math.abs(plain[r * f + c]));
      }
    }
    const okRows = maxErr <= 0.05 * maxCorr + 2 * 2 ** -8 * maxY && maxCorr > 0;
    console.log(`${okRows ? 'ok  ' : 'FAIL'} fp8 sequence correction ${lengths.length} segments ${d}→${f}: rows moved within ${maxErr.toExponential(2)} of the cpu's correction (up to ${maxCorr.toExponential(2)}; outputs up to ${maxY.toFixed(2)})`);
    if (okRows) passed++; else failed++;
    const meanRms = (y: Float32Array) => {
      let sq = 0;
      for (let s = 0; s < lengths.length; s++) {
        for (let c = 0; c < f; c++) {
          let got = 0; let exact = b[c];
          for (let r = offsets[s]; r < offsets[s + 1]; r++) got += y[r * f + c] / lengths[s];
          for (let k = 0; k < d; k++) for (let r = offsets[s]; r < offsets[s + 1]; r++) exact += (x[r * d + k] * w[k * f + c]) / lengths[s];
          sq += (got - exact) ** 2;
        }
      }
      return Math.sqrt(sq / (lengths.length * f));
    };
    const [withIt, without] = [meanRms(corrected), meanRms(plain)];
    const okMeans = withIt < 0.5 * without;
    console.log(`${okMeans ? 'ok  ' : 'FAIL'} fp8 sequence correction: the sequences' mean output rows' RMS error to the exact ones ${withIt.toExponential(2)} corrected, ${without.toExponential(2)} plain`);
    if (okMeans) passed++; else failed++;
    let diff = 0;
    for (let i = 0; i < 50 * f; i++) diff = Math.max(diff, Math.abs(lastAlone[i] - corrected[46 * f + i]));
    console.log(`${diff === 0 ? 'ok  ' : 'FAIL'} fp8 sequence correction: a sequence alone and packed after three others, max |Δ| ${diff}`);
    if (diff === 0) passed++; else failed++;
  }
  // The first blocks of a model run in bf16 (withModelBlock): a layer norm and a linear layer in block 0 of 12 give
  // exactly what they give with every layer kept in bf16; in block 11 of 12 they run in fp8 (and differ).
  {
    const [n, d, f] = [64, 256, 512];
    const x = random(n * d, -2, 2); const g = random(d, 0.5, 1.5); const be = random(d, -0.2, 0.2); const w = random(d * f, -0.1, 0.1); const b = random(f);
    const build = (block: number) => () => inModelBlock(block, 12, () => linear(layerNorm(tf.tensor2d(x, [n, d]), tf.tensor1d(g), tf.tensor1d(be), 1e-5), tf.tensor2d(w, [d, f]), tf.tensor1d(b)));
    const [first, second] = [await run('cuda', build(0)), await run('cuda', build(11))];
    const layers = cuda.fp8Bf16Layers;
    cuda.fp8Bf16Layers = new Set(['qkv', 'out', 'fc1', 'fc2']);
    const bf16 = await run('cuda', build(11));
    cuda.fp8Bf16Layers = layers;
    const maxDiff = (a: Float32Array, c: Float32Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - c[i])), 0);
    const ok = cuda.fp8Bf16BlockCount(12) >= 1 && cuda.fp8Bf16BlockCount(12) < 12 && maxDiff(first, bf16) === 0 && maxDiff(second, bf16) > 0;
    console.log(`${ok ? 'ok  ' : 'FAIL'} fp8 bf16 blocks: block 0 of 12 as bf16 (max |Δ| ${maxDiff(first, bf16)}), block 11 in fp8 (max |Δ| to bf16 ${maxDiff(second, bf16).toExponential(2)}), ${cuda.fp8Bf16BlockCount(12)} of 12 / ${cuda.fp8Bf16BlockCount(36)} of 36 in bf16`);
    if (ok) passed++; else failed++;
    // inRefinementPrecision: every block as in bf16, block 11 included.
    const refined = await run('cuda', () => inRefinementPrecision(build(11)));
    const okRefined = maxDiff(refined, bf16) === 0;
    console.log(`${okRefined ? 'ok  ' : 'FAIL'} fp8 refinement precision: block 11 of 12 as bf16 (max |Δ| ${maxDiff(refined, bf16)})`);
    if (okRefined) passed++; else failed++;
  }
}

// Weights given as fp16 / bf16 bits (halfToFloat: the cuda kernel converts them on the GPU; cpu widens on the host).
for (const n of [1, 7, 4096, 100003]) {
  const v = random(n, -3, 3);
  const f16 = float32ToFloat16Bits(v);
  const bf16 = Uint16Array.from(new Uint32Array(Float32Array.from(v).buffer), (u) => u >>> 16);
  await check(`halfToFloat float16 ${n}`, () => halfToFloat(f16, [n], 'float16'));
  await check(`halfToFloat bfloat16 ${n}`, () => halfToFloat(bf16, [n], 'bfloat16'));
}

// LayerNorm (offset inputs: a mean far from 0 tests the two-pass variance). Rows of 100 take the shared-memory
// kernel; rows of up to 12 words a lane (16, 768, 2,560) in bf16 storage (bf16, fp8) the warp-per-row kernel (row
// counts that leave the last block of eight rows part-full), and again with it off, the one-word-per-thread kernel
// (fp16 and fp32 take the block kernels both times); 5,120 (16-bit) the one-word-per-thread kernel, (fp32) the
// shared-memory one.
for (const [n, d] of [[1, 16], [33, 100], [65, 768], [257, 2560], [3, 5120]]) {
  const x = random(n * d, 2, 4); const g = random(d, 0.5, 1.5); const b = random(d);
  await check(`layerNorm ${n}×${d}`, () => layerNorm(tf.tensor2d(x, [n, d]), tf.tensor1d(g), tf.tensor1d(b), 1e-5));
  cuda.layerNormPerWarp = false;
  await check(`layerNorm ${n}×${d}, block per row`, () => layerNorm(tf.tensor2d(x, [n, d]), tf.tensor1d(g), tf.tensor1d(b), 1e-5));
  cuda.layerNormPerWarp = true;
}

// GeGLU. fp8 with a width fc2 takes as an FP8 GEMM: GeGLU writes only its output's fp8 rows (fused, the default),
// so the values read back are those rows, against the cpu's output rounded to E4M3 per row (as fc1's GELU above).
for (const [n, f] of [[1, 8], [65, 3072], [7, 12], [3, 5]]) {
  const x = random(n * 2 * f, -3, 3);
  const build = () => geglu(tf.tensor2d(x, [n, 2 * f]));
  const fp8Rows = precision === 'fp8' && cuda.fp8GegluFused && f % 16 === 0;
  await check(`geglu ${n}×${2 * f}${fp8Rows ? ' fp8 rows' : ''}`, build, tolerance, fp8Rows
    ? () => ({ build: () => tf.tensor2d(e4m3Rounded(build().dataSync() as Float32Array, n, f), [n, f]), tol: 0.075 })
    : undefined);
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

// The tensor-core attention compiled for another occupancy (attention-min-blocks.ts) must give the same bytes:
// only the registers a thread may use change, not the arithmetic. The two shapes the setting was measured on.
for (const [name, lengths, H, rotate, alibi] of [
  ['52-token proteins with rotary (ESM-2 head size)', Array(315).fill(52), 8, true, false],
  ['150-bp windows with ALiBi (DNABERT-S)', Array.from({ length: 300 }, (_, i) => 28 + (i % 15)), 12, false, true],
] as [string, number[], number, boolean, boolean][]) {
  if (precision === 'fp32') break; // fp32 runs the CUDA-core kernel, which has no such setting
  const hd = 64; const N = lengths.reduce((a, b) => a + b, 0); const P = Math.max(...lengths);
  const qkv = random(N * 3 * H * hd, -2, 2); const cos = random(P * hd); const sin = random(P * hd);
  const slopes = Float32Array.from({ length: H }, (_, h) => 2 ** (-(h + 1) / 2));
  const attend = () => {
    const layout = packedLayout(lengths);
    try {
      const rotary = rotate ? { rotary: { cos: tf.tensor2d(cos, [P, hd]), sinSigned: tf.tensor2d(sin, [P, hd]) } } : {};
      return packedAttention(tf.tensor2d(qkv, [N, 3 * H * hd]), layout, { numHeads: H, scale: 0.125, ...rotary, ...(alibi ? { alibiSlopes: slopes } : {}) });
    } finally {
      layout.dispose();
    }
  };
  const measured = cuda.attentionMinBlocks;
  try {
    const ours = await run('cuda', attend);
    const differing = [];
    for (const blocks of [0, 4, 5, 6].filter((b) => b !== measured)) {
      cuda.attentionMinBlocks = blocks;
      const other = await run('cuda', attend);
      const n = ours.reduce((count, v, i) => count + (Object.is(v, other[i]) ? 0 : 1), 0);
      if (n) differing.push(`${n} values differ at ${blocks} blocks`);
    }
    console.log(`${differing.length ? 'FAIL' : 'ok  '} packedAttention ${name}: the same bytes at 0, 4, 5, 6 blocks per SM${differing.length ? ` (${differing.join('; ')})` : ''}`);
    if (differing.length) failed++; else passed++;
  } catch (error) {
    console.log(`FAIL packedAttention ${name}, blocks per SM: ${(error as Error).stack}`);
    failed++;
  } finally {
    cuda.attentionMinBlocks = measured;
  }
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

// The GEMM plans are cached per row count and only the most recently used are kept: a run through more row counts
// than the cache holds leaves it at its bound, and a row count whose plan was evicted gets the same bytes again.
// Last but one: its inputs draw on the seeded generator, and the checks above keep the inputs they were tuned on.
{
  const [i, o] = [96, 160];
  const w = random(i * o, -0.2, 0.2); const b = random(o);
  const gemm = async (n: number, x = random(n * i)) => run('cuda', () => linear(tf.tensor2d(x, [n, i]), tf.tensor2d(w, [i, o]), tf.tensor1d(b)));
  const x5 = random(5 * i);
  const first = await gemm(5, x5);
  for (let n = 6; n < 6 + PLAN_CACHE_SIZE + 40; n++) await gemm(n);
  const again = await gemm(5, x5);
  const count = cuda.blas.planCount;
  const same = first.length === again.length && first.every((v, k) => Object.is(v, again[k]));
  const ok = same && count <= 2 * PLAN_CACHE_SIZE;
  console.log(`${ok ? 'ok  ' : 'FAIL'} GEMM plans after ${PLAN_CACHE_SIZE + 42} row counts: ${count} cached (bound ${2 * PLAN_CACHE_SIZE}); 5 rows after its plan's eviction ${same ? 'the same bytes' : 'OTHER BYTES'}`);
  if (ok) passed++; else failed++;
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
  // readInto (ops readFloats): the same values into the start of a longer array given, the rest untouched.
  const given = new Float32Array(1500).fill(-7);
  const into = await readFloats(t, () => given);
  const intoOk = into.buffer === given.buffer && into.length === 1000 && into.every((v, i) => v === sync[i]) && given[1000] === -7;
  tf.dispose([t, ints]);
  console.log(`${same && intsOk && intoOk ? 'ok  ' : 'FAIL'} read/readSync/readInto agree, int32 round trip`);
  if (same && intsOk && intoOk) passed++; else failed++;
  const memory = tf.memory() as tf.MemoryInfo & { numBytesInGPU?: number };
  console.log(`memory: ${JSON.stringify(memory)}`);
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
