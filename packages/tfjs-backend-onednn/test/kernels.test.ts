import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { embedding, geglu, layerNorm, linear, packedAttention, packedLayout, queryBlockRows, rotaryQkv, segmentMean } from '@virnucpro/ops';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randoms } from './randoms.js';
import { ONEDNN_BACKEND, probeOnednn } from '../src/index.js';

const probe = probeOnednn();


/** Runs `f` on a backend and returns its result's values. */
async function on(backend: string, f: () => tf.Tensor): Promise<Float32Array> {
  await tf.setBackend(backend);
  const t = f();
  const values = (await t.data()) as Float32Array;
  t.dispose();
  return values;
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

describe.skipIf(!probe.ok)('onednn kernels against the composites on tfjs cpu', () => {
  beforeAll(() => tf.env().set('PROD', true));
  afterAll(async () => { await tf.setBackend('cpu'); });

  // Without bias, residual or activation the GEMM writes the output itself (full 128-row blocks) and the last
  // partial block comes through the arena: 1, 128, 129 and 300 rows take each way and both.
  it.each([
    [1, 7, 5, 'none', false, true], [130, 33, 70, 'gelu', false, true], [300, 64, 48, 'none', true, true], [129, 480, 1920, 'gelu', false, true],
    [1, 7, 5, 'none', false, false], [128, 33, 70, 'none', false, false], [129, 33, 70, 'none', false, false], [300, 64, 48, 'none', false, false],
  ] as const)('linear %i rows, k=%i, n=%i, act=%s residual=%s bias=%s', async (rows, k, n, activation, withResidual, withBias) => {
    const x = randoms(rows * k, 1), w = randoms(k * n, 2).map((v) => v * 0.1), b = randoms(n, 3), r = randoms(rows * n, 4);
    const run = () => linear(tf.tensor2d(x, [rows, k]), tf.tensor2d(w, [k, n]), withBias ? tf.tensor1d(b) : undefined, {
      activation, ...(withResidual ? { residual: tf.tensor2d(r, [rows, n]) } : {}),
    });
    expect(maxAbsDiff(await on(ONEDNN_BACKEND, run), await on('cpu', run))).toBeLessThan(2e-5);
  });

  it.each([[1, 1], [3, 130], [65, 7], [129, 200]] as const)('transpose %i×%i: the same bytes as tfjs cpu (and other transposes still work)', async (r, c) => {
    const x = randoms(r * c, 21);
    const t2 = () => tf.transpose(tf.tensor2d(x, [r, c]));
    expect(Buffer.from((await on(ONEDNN_BACKEND, t2)).buffer).equals(Buffer.from((await on('cpu', t2)).buffer))).toBe(true);
    const t3 = () => tf.transpose(tf.tensor3d(x, [r, 1, c]), [2, 0, 1]);
    expect(Buffer.from((await on(ONEDNN_BACKEND, t3)).buffer).equals(Buffer.from((await on('cpu', t3)).buffer))).toBe(true);
  });

  const same = (a: Float32Array, b: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

  it('embedding (scalar scale, per-row factors) and segment mean (with and without skipped rows): the bytes of the composites', async () => {
    const V = 9, d = 37, ids = Int32Array.of(3, 0, 8, 8, 1, 5, 2, 7, 4, 6, 0, 3);
    const table = randoms(V * d, 31), factors = randoms(ids.length, 32);
    for (const scale of [1, 0.3, undefined]) {
      const run = () => embedding(tf.tensor1d(ids, 'int32'), tf.tensor2d(table, [V, d]), scale ?? tf.tensor1d(factors));
      expect(same(await on(ONEDNN_BACKEND, run), await on('cpu', run)), `scale ${scale ?? 'per row'}`).toBe(true);
    }
    await tf.setBackend(ONEDNN_BACKEND);
    expect(() => embedding(tf.tensor1d(Int32Array.of(2, V), 'int32'), tf.tensor2d(table, [V, d]))).toThrow(/id 9 is not in \[0, 8\]/);
    for (const [skipStart, skipEnd] of [[0, 0], [1, 1]]) {
      const layout = packedLayout([5, 3, 40, 3, 17]);
      const x = randoms(layout.totalTokens * d, 34 + skipStart).map((v) => v * 100 + 3);
      const run = () => segmentMean(tf.tensor2d(x, [layout.totalTokens, d]), layout, skipStart, skipEnd);
      expect(same(await on(ONEDNN_BACKEND, run), await on('cpu', run)), `skip ${skipStart}+${skipEnd}`).toBe(true);
      layout.dispose();
    }
  });

  it('layer norm and geglu', async () => {
    const rows = 37, d = 99;
    const x = randoms(rows * d, 5).map((v) => v * 3 + 1), g = randoms(d, 6), b = randoms(d, 7);
    const ln = () => layerNorm(tf.tensor2d(x, [rows, d]), tf.tensor1d(g), tf.tensor1d(b), 1e-5);
    expect(maxAbsDiff(await on(ONEDNN_BACKEND, ln), await on('cpu', ln))).toBeLessThan(1e-5);
    const gg = () => geglu(tf.tensor2d(x.subarray(0, rows * 98), [rows, 98]));
    expect(maxAbsDiff(await on(ONEDNN_BACKEND, gg), await on('cpu', gg))).toBeLessThan(1e-5);
  });

  it.each([[3, 8, false], [5, 16, true], [1, 24, false]] as const)('packed attention, %i heads of %i, alibi=%s, with and without rotary', async (H, hd, alibi) => {
    const lengths = [1, 7, 30, 3, 18];
    const layout = packedLayout(lengths);
    const rows = layout.totalTokens, w3 = 3 * H * hd;
    const qkv = randoms(rows * w3, 8);
    const positionsMax = 64;
    const cos = randoms(positionsMax * hd, 9), sin = randoms(positionsMax * hd, 10);
    const slopes = alibi ? Float32Array.from({ length: H }, (_, h) => 0.5 / (h + 1)) : undefined;
    for (const withRotary of [false, true]) {
      const run = () => packedAttention(tf.tensor2d(qkv, [rows, w3]), layout, {
        numHeads: H, scale: 1 / Math.sqrt(hd), ...(slopes ? { alibiSlopes: slopes } : {}),
        ...(withRotary ? { rotary: { cos: tf.tensor2d(cos, [positionsMax, hd]), sinSigned: tf.tensor2d(sin, [positionsMax, hd]) } } : {}),
      });
      expect(maxAbsDiff(await on(ONEDNN_BACKEND, run), await on('cpu', run))).toBeLessThan(2e-5);
    }
    const rot = () => rotaryQkv(tf.tensor2d(qkv, [rows, w3]), tf.tensor2d(cos, [positionsMax, hd]), tf.tensor2d(sin, [positionsMax, hd]), layout.positionsTensor, H);
    expect(maxAbsDiff(await on(ONEDNN_BACKEND, rot), await on('cpu', rot))).toBeLessThan(1e-6);
    layout.dispose();
  });

  it('packed attention with ALiBi of a segment too long for one block: the bias of each block from its rows, as the composite', async () => {
    const H = 2, hd = 8, lengths = [3000, 5];
    const layout = packedLayout(lengths);
    const rows = layout.totalTokens, w3 = 3 * H * hd;
    const qkv = randoms(rows * w3, 14);
    const run = () => packedAttention(tf.tensor2d(qkv, [rows, w3]), layout, { numHeads: H, scale: 1 / Math.sqrt(hd), alibiSlopes: Float32Array.of(0.5, 0.0625) });
    expect(maxAbsDiff(await on(ONEDNN_BACKEND, run), await on('cpu', run))).toBeLessThan(2e-5);
    layout.dispose();
  });

  it('packed attention of a segment too long for one block of scores: its query rows in blocks, as the composite', async () => {
    // 2 heads × 3,000² scores is past the 2^24 a block holds: two blocks of rows (a 35,000-residue protein takes 240).
    const H = 2, hd = 8, lengths = [3000, 5];
    expect(queryBlockRows(H, 3000)).toBeLessThan(3000);
    const layout = packedLayout(lengths);
    const rows = layout.totalTokens, w3 = 3 * H * hd;
    const qkv = randoms(rows * w3, 11);
    const cos = randoms(3000 * hd, 12), sin = randoms(3000 * hd, 13);
    const run = () => packedAttention(tf.tensor2d(qkv, [rows, w3]), layout, {
      numHeads: H, scale: 1 / Math.sqrt(hd), rotary: { cos: tf.tensor2d(cos, [3000, hd]), sinSigned: tf.tensor2d(sin, [3000, hd]) },
    });
    expect(maxAbsDiff(await on(ONEDNN_BACKEND, run), await on('cpu', run))).toBeLessThan(2e-5);
    layout.dispose();
  });
});
