import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  embedding, geglu, gelu, layerNorm, linear, packedAttention, packedLayout, rotaryQkv, segmentMean, type BackendName,
} from '../src/index.js';
import { queryBlockRows } from '../src/query-block-rows.js';
import {
  erf, fuseQkv, maxAbsDiff, randomArray, refAttention, refEmbedding, refGeglu, refGelu, refLayerNorm, refLinear, refLinearAct,
  refRotaryQkv, seededRandom,
} from './reference.js';
import { startBackend } from './start-backend.js';

describe('reference erf', () => {
  it('matches known values', () => {
    expect(erf(0.5)).toBeCloseTo(0.5204998778130465, 14);
    expect(erf(-1)).toBeCloseTo(-0.8427007929497149, 14);
    expect(erf(3.5)).toBeCloseTo(0.9999992569016276, 14);
  });
});

/** Runs `make` once to warm caches (layout index tensors), then checks that a second run leaves no tensor behind. */
function expectNoLeak(make: () => tf.Tensor): void {
  make().dispose();
  const before = tf.memory().numTensors;
  make().dispose();
  expect(tf.memory().numTensors).toBe(before);
}

/** cos / signed-sin tables [P, hd] for the half-split rotary convention. */
function tables(invFreq: Float32Array, P: number) {
  const half = invFreq.length;
  const hd = 2 * half;
  const cos = new Float32Array(P * hd);
  const sinSigned = new Float32Array(P * hd);
  for (let p = 0; p < P; p++) {
    for (let i = 0; i < half; i++) {
      const angle = p * invFreq[i];
      cos[p * hd + i] = cos[p * hd + i + half] = Math.cos(angle);
      sinSigned[p * hd + i] = -Math.sin(angle);
      sinSigned[p * hd + i + half] = Math.sin(angle);
    }
  }
  return { cos: tf.tensor2d(cos, [P, hd]), sinSigned: tf.tensor2d(sinSigned, [P, hd]) };
}

describe.each<BackendName>(['cpu', 'wasm'])('ops on %s', (backend) => {
  beforeAll(async () => {
    expect(await startBackend(backend as 'cpu' | 'wasm')).toBe(backend);
  });

  describe('linear', () => {
    const [rows, inner, cols] = [37, 48, 29];
    const random = seededRandom(1);
    const x = randomArray(rows * inner, random);
    const w = randomArray(inner * cols, random);
    const b = randomArray(cols, random);
    const residual = randomArray(rows * cols, random, 3);

    it('= x·wT + b, with and without bias', () => {
      const withBias = linear(tf.tensor2d(x, [rows, inner]), tf.tensor2d(w, [inner, cols]), tf.tensor1d(b));
      expect(withBias.shape).toEqual([rows, cols]);
      expect(maxAbsDiff(withBias.dataSync(), refLinear(x, w, b, rows, inner, cols))).toBeLessThan(1e-5);
      const noBias = linear(tf.tensor2d(x, [rows, inner]), tf.tensor2d(w, [inner, cols]));
      expect(maxAbsDiff(noBias.dataSync(), refLinear(x, w, undefined, rows, inner, cols))).toBeLessThan(1e-5);
    });

    it('fuses the GELU activation and the residual add', () => {
      const [tx, tw, tb, tr] = [tf.tensor2d(x, [rows, inner]), tf.tensor2d(w, [inner, cols]), tf.tensor1d(b), tf.tensor2d(residual, [rows, cols])];
      const cases: [{ activation?: 'none' | 'gelu'; residual?: tf.Tensor2D }, tf.Tensor1D | undefined][] = [
        [{ activation: 'gelu' }, tb],
        [{ residual: tr }, tb],
        [{ activation: 'gelu', residual: tr }, tb],
        [{ activation: 'gelu', residual: tr }, undefined],
        [{ activation: 'none', residual: tr }, undefined],
      ];
      for (const [options, bias] of cases) {
        const got = linear(tx, tw, bias, options).dataSync();
        const expected = refLinearAct(x, w, bias ? b : undefined, rows, inner, cols, {
          activation: options.activation, residual: options.residual ? residual : undefined,
        });
        expect(maxAbsDiff(got, expected), JSON.stringify({ ...options, residual: !!options.residual, bias: !!bias })).toBeLessThan(1e-5);
      }
      expectNoLeak(() => linear(tx, tw, tb, { activation: 'gelu', residual: tr }));
      tf.dispose([tx, tw, tb, tr]);
    });

    it('rejects mismatched shapes and unknown activations', () => {
      const tx = tf.zeros([4, 6]) as tf.Tensor2D;
      expect(() => linear(tx, tf.zeros([5, 3]) as tf.Tensor2D)).toThrow(/inner sizes 6 and 5 differ/);
      expect(() => linear(tx, tf.zeros([6, 3]) as tf.Tensor2D, tf.zeros([4]) as tf.Tensor1D)).toThrow(/linear: b must have shape \[3\]/);
      expect(() => linear(tx, tf.zeros([6, 3]) as tf.Tensor2D, undefined, { residual: tf.zeros([4, 4]) as tf.Tensor2D })).toThrow(/residual must have shape \[4,3\]/);
      expect(() => linear(tx, tf.zeros([6, 3]) as tf.Tensor2D, undefined, { activation: 'relu' as 'gelu' })).toThrow(/unknown activation 'relu'/);
      expect(() => linear(tf.zeros([4]) as unknown as tf.Tensor2D, tf.zeros([6, 3]) as tf.Tensor2D)).toThrow(/x must have rank 2/);
      const layout = packedLayout([2, 3]);
      expect(() => linear(tx, tf.zeros([6, 3]) as tf.Tensor2D, undefined, { segments: layout })).toThrow(/x has 4 rows, its segments' layout has 5/);
      layout.dispose();
    });

    it('gives the same result told its rows\' sequences (segments)', () => {
      const [tx, tw, tb] = [tf.randomUniform([5, 6], -1, 1, 'float32', 3) as tf.Tensor2D, tf.randomUniform([6, 4], -1, 1, 'float32', 4) as tf.Tensor2D, tf.randomUniform([4], -1, 1, 'float32', 5) as tf.Tensor1D];
      const layout = packedLayout([2, 3]);
      expect(Array.from(linear(tx, tw, tb, { segments: layout }).dataSync())).toEqual(Array.from(linear(tx, tw, tb).dataSync()));
      layout.dispose();
      tf.dispose([tx, tw, tb]);
    });
  });

  it('layerNorm normalises each row with biased variance, gain and bias', () => {
    const random = seededRandom(2);
    const [rows, d] = [23, 64];
    const x = randomArray(rows * d, random, 3).map((v, i) => v + (i % d === 0 ? 5 : 0));
    const gamma = randomArray(d, random);
    const beta = randomArray(d, random);
    for (const eps of [1e-5, 1e-12]) {
      const y = layerNorm(tf.tensor2d(x, [rows, d]), tf.tensor1d(gamma), tf.tensor1d(beta), eps);
      expect(maxAbsDiff(y.dataSync(), refLayerNorm(x, gamma, beta, eps, rows, d))).toBeLessThan(2e-5);
    }
    const [tx, tg, tb] = [tf.tensor2d(x, [rows, d]), tf.tensor1d(gamma), tf.tensor1d(beta)];
    // Told its output only feeds linear layers, a backend with no lower-precision copy gives the same values.
    expect(Array.from(layerNorm(tx, tg, tb, 1e-5, { linearInputOnly: true }).dataSync())).toEqual(Array.from(layerNorm(tx, tg, tb, 1e-5).dataSync()));
    expectNoLeak(() => layerNorm(tx, tg, tb, 1e-5));
    expect(() => layerNorm(tx, tf.zeros([d + 1]) as tf.Tensor1D, tb, 1e-5)).toThrow(/gamma must have shape \[64\]/);
    expect(() => layerNorm(tx, tg, tb, Number.NaN)).toThrow(/eps must be a finite number/);
    tf.dispose([tx, tg, tb]);
  });

  it('gelu is the exact erf form (not the tanh approximation)', () => {
    const x = Float32Array.from({ length: 401 }, (_, i) => -8 + i * 0.04);
    const y = gelu(tf.tensor1d(x)).dataSync();
    expect(maxAbsDiff(y, refGelu(x))).toBeLessThan(2e-6);
    // The tanh form differs from erf by up to ~5e-4 near |x|≈2; make sure we are not it.
    const tanhForm = x.map((v) => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3))));
    expect(maxAbsDiff(y, tanhForm)).toBeGreaterThan(1e-4);
  });

  it('geglu = gelu(first half) · second half', () => {
    const random = seededRandom(11);
    const [rows, f] = [19, 24];
    const x = randomArray(rows * 2 * f, random, 4);
    const tx = tf.tensor2d(x, [rows, 2 * f]);
    const y = geglu(tx);
    expect(y.shape).toEqual([rows, f]);
    expect(maxAbsDiff(y.dataSync(), refGeglu(x, rows, f))).toBeLessThan(1e-5);
    expectNoLeak(() => geglu(tx));
    expect(() => geglu(tf.zeros([3, 5]) as tf.Tensor2D)).toThrow(/even number of columns/);
    tf.dispose([tx, y]);
  });

  describe('rotaryQkv', () => {
    for (const H of [1, 3, 4]) {
      it(`rotates q and k per row position and copies v (${H} heads, packed segments)`, () => {
        const hd = 8;
        const invFreq = Float32Array.from({ length: hd / 2 }, (_, i) => 1 / 10000 ** ((2 * i) / hd));
        const layout = packedLayout([5, 1, 12, 3]);
        const N = layout.totalTokens;
        const qkv = randomArray(N * 3 * H * hd, seededRandom(20 + H), 2);
        const { cos, sinSigned } = tables(invFreq, 16);
        const tqkv = tf.tensor2d(qkv, [N, 3 * H * hd]);
        const out = rotaryQkv(tqkv, cos, sinSigned, layout.positionsTensor, H);
        expect(out.shape).toEqual([N, 3 * H * hd]);
        const got = out.dataSync();
        expect(maxAbsDiff(got, refRotaryQkv(qkv, invFreq, layout.positions, H, hd))).toBeLessThan(1e-5);
        // v is copied bit for bit; position 0 leaves q and k unchanged.
        for (let n = 0; n < N; n++) {
          const row = (a: ArrayLike<number>, from: number, to: number) => Array.from(a).slice(n * 3 * H * hd + from, n * 3 * H * hd + to);
          expect(row(got, 2 * H * hd, 3 * H * hd)).toEqual(row(qkv, 2 * H * hd, 3 * H * hd));
          if (layout.positions[n] === 0) expect(row(got, 0, 2 * H * hd)).toEqual(row(qkv, 0, 2 * H * hd));
        }
        expectNoLeak(() => rotaryQkv(tqkv, cos, sinSigned, layout.positionsTensor, H));
        tf.dispose([tqkv, out, cos, sinSigned]);
        layout.dispose();
      });
    }

    it('rejects inconsistent shapes', () => {
      const qkv = tf.zeros([4, 24]) as tf.Tensor2D;
      const cos = tf.zeros([8, 4]) as tf.Tensor2D;
      const positions = tf.tensor1d([0, 1, 2, 3], 'int32');
      expect(() => rotaryQkv(qkv, cos, cos, positions, 5)).toThrow(/not 3 × 5 heads/);
      expect(() => rotaryQkv(qkv, tf.zeros([8, 6]) as tf.Tensor2D, cos, positions, 2)).toThrow(/expected \[positions, 4\]/);
      expect(() => rotaryQkv(qkv, cos, tf.zeros([9, 4]) as tf.Tensor2D, positions, 2)).toThrow(/sinSigned must have shape \[8,4\]/);
      expect(() => rotaryQkv(qkv, cos, cos, tf.tensor1d([0, 1, 2, 3]), 2)).toThrow(/positions must be int32/);
      expect(() => rotaryQkv(qkv, cos, cos, tf.tensor1d([0, 1], 'int32'), 2)).toThrow(/positions must have shape \[4\]/);
      expect(() => rotaryQkv(tf.zeros([4, 18]) as tf.Tensor2D, cos, cos, positions, 2)).toThrow(/head size 3 must be even/);
    });
  });

  it('embedding gathers rows and scales them by a number or per-row factors', () => {
    const random = seededRandom(12);
    const [V, d] = [33, 16];
    const table = randomArray(V * d, random);
    const ids = Int32Array.from([0, 5, 32, 5, 7, 1, 2]);
    const rowScale = Float32Array.from([0.88, 0.88, 0, 1.1, 1.1, 0, 1]);
    const [tids, ttable, tscale] = [tf.tensor1d(ids, 'int32'), tf.tensor2d(table, [V, d]), tf.tensor1d(rowScale)];
    for (const scale of [1, 0.88]) {
      const y = embedding(tids, ttable, scale);
      expect(y.shape).toEqual([ids.length, d]);
      // Scale 1 is a plain gather (bit-exact); otherwise one fp32 multiply per value.
      expect(maxAbsDiff(y.dataSync(), refEmbedding(ids, table, d, scale))).toBeLessThanOrEqual(scale === 1 ? 0 : 1e-6);
    }
    expect(maxAbsDiff(embedding(tids, ttable, tscale).dataSync(), refEmbedding(ids, table, d, rowScale))).toBeLessThan(1e-6);
    expect(maxAbsDiff(embedding(tids, ttable).dataSync(), refEmbedding(ids, table, d, 1))).toBe(0);
    expectNoLeak(() => embedding(tids, ttable, tscale));
    expectNoLeak(() => embedding(tids, ttable, 0.5));
    expect(() => embedding(tf.tensor1d([1, 2]), ttable)).toThrow(/ids must be int32/);
    expect(() => embedding(tids, ttable, tf.tensor1d([1, 2]))).toThrow(/rowScale must have shape \[7\]/);
    expect(() => embedding(tids, ttable, Number.POSITIVE_INFINITY)).toThrow(/finite/);
    tf.dispose([tids, ttable, tscale]);
  });

  describe('packedAttention (fused qkv)', () => {
    function packedInputs(lengths: readonly number[], width: number, seed: number) {
      const random = seededRandom(seed);
      const N = lengths.reduce((a, b) => a + b, 0);
      const q = randomArray(N * width, random, 2);
      const k = randomArray(N * width, random, 2);
      const v = randomArray(N * width, random);
      return { N, q, k, v, qkv: fuseQkv(q, k, v, N, width) };
    }

    function checkAgainstReference(lengths: readonly number[], H: number, hd: number, slopes: Float32Array | undefined, seed: number) {
      const width = H * hd;
      const { N, q, k, v, qkv } = packedInputs(lengths, width, seed);
      const scale = 1 / Math.sqrt(hd);
      const layout = packedLayout(lengths);
      const out = packedAttention(tf.tensor2d(qkv, [N, 3 * width]), layout, { numHeads: H, scale, alibiSlopes: slopes });
      expect(out.shape).toEqual([N, width]);
      const got = out.dataSync();
      let offset = 0;
      for (const L of lengths) {
        const part = (a: Float32Array) => a.subarray(offset * width, (offset + L) * width);
        const expected = refAttention(part(q), part(k), part(v), L, H, hd, scale, slopes);
        expect(maxAbsDiff(got.subarray(offset * width, (offset + L) * width), expected), `segment of length ${L}`).toBeLessThan(1e-5);
        offset += L;
      }
      out.dispose();
      layout.dispose();
    }

    // Two segments of 17 and two of 1: groups of several segments and of one.
    const lengths = [5, 1, 17, 9, 12, 17, 1];
    for (const alibi of [false, true]) {
      it(`equals per-segment naive attention${alibi ? ' with ALiBi' : ''}`, () => {
        const slopes = alibi ? Float32Array.from([0.5, 0.25, 0.70710678, 0.125]) : undefined;
        checkAgainstReference(lengths, 4, 8, slopes, alibi ? 4 : 3);
      });
    }

    for (const H of [3, 5]) {
      for (const alibi of [false, true]) {
        it(`${H} heads${alibi ? ' with ALiBi' : ''}: one segment, and many mixed-length segments with 1-token ones`, () => {
          const slopes = alibi ? Float32Array.from({ length: H }, (_, h) => 2 ** -(h + 1)) : undefined;
          checkAgainstReference([13], H, 6, slopes, 30 + H);
          checkAgainstReference([1], H, 6, slopes, 31 + H);
          checkAgainstReference([1, 7, 1, 1, 23, 4, 1, 16, 2, 1], H, 6, slopes, 32 + H);
          checkAgainstReference([3, 3, 3], H, 6, slopes, 33 + H); // identity layout: no gathers
        });
      }
    }

    // wasm only, as below: the composite is the cpu backend's too, where 17M scores take ~45 s.
    it.runIf(backend === 'wasm')('long segments take their query rows in blocks: same result as the naive attention, with and without ALiBi', () => {
      // 4 heads × 2,100² scores pass the 2^24-element block limit: 2 blocks of query rows; the short one is one block.
      expect(queryBlockRows(4, 2100)).toBeLessThan(2100);
      checkAgainstReference([2100, 30], 4, 4, undefined, 40);
      checkAgainstReference([2100], 4, 4, Float32Array.from([0.5, 0.25, 0.125, 0.0625]), 41);
    });

    it.runIf(backend === 'wasm')('the scores of a long segment are never all held at once (peak memory linear in its length)', async () => {
      const [H, hd, L] = [4, 4, 4500];
      const width = H * hd;
      const { qkv } = packedInputs([L], width, 42);
      const layout = packedLayout([L]);
      const input = tf.tensor2d(qkv, [L, 3 * width]);
      const profile = await tf.profile(() => packedAttention(input, layout, { numHeads: H, scale: 0.5 }));
      const padded = layout.groups[0].length; // the segment length attention runs on
      const allScores = H * padded * padded * 4; // ≥ 324 MB: what one full scores tensor would take (its softmax about 4 such)
      expect(profile.peakBytes).toBeLessThan(allScores);
      input.dispose();
      layout.dispose();
      profile.result instanceof tf.Tensor && profile.result.dispose();
    });

    it('packed result equals running each segment alone (no attention across segments)', () => {
      const [H, hd] = [4, 8];
      const width = H * hd;
      const { N, q, k, v, qkv } = packedInputs(lengths, width, 5);
      const layout = packedLayout(lengths);
      const packed = packedAttention(tf.tensor2d(qkv, [N, 3 * width]), layout, { numHeads: H, scale: 0.3 }).dataSync();
      let offset = 0;
      for (const L of lengths) {
        const slice = (a: Float32Array) => a.slice(offset * width, (offset + L) * width);
        const single = packedLayout([L]);
        const alone = packedAttention(tf.tensor2d(fuseQkv(slice(q), slice(k), slice(v), L, width), [L, 3 * width]), single, { numHeads: H, scale: 0.3 }).dataSync();
        expect(maxAbsDiff(packed.subarray(offset * width, (offset + L) * width), alone)).toBeLessThan(1e-6);
        single.dispose();
        offset += L;
      }
      layout.dispose();
    });

    it('a change in one segment does not leak into another', () => {
      const [H, hd] = [4, 8];
      const width = H * hd;
      const { N, q, k, v } = packedInputs(lengths, width, 6);
      const layout = packedLayout(lengths);
      for (const alibiSlopes of [undefined, Float32Array.from([0.5, 0.25, 0.125, 0.0625])]) {
        const run = (vv: Float32Array) =>
          packedAttention(tf.tensor2d(fuseQkv(q, k, vv, N, width), [N, 3 * width]), layout, { numHeads: H, scale: 1, alibiSlopes }).dataSync();
        const before = run(v);
        const changed = v.slice();
        for (let i = 0; i < lengths[0] * width; i++) changed[i] += 10; // segment 0 only
        const after = run(changed);
        expect(maxAbsDiff(before.subarray(lengths[0] * width), after.subarray(lengths[0] * width))).toBe(0);
        expect(maxAbsDiff(before.subarray(0, lengths[0] * width), after.subarray(0, lengths[0] * width))).toBeGreaterThan(1);
      }
      layout.dispose();
    });

    it('does not leak tensors beyond the layout it owns', () => {
      const [H, hd] = [4, 8];
      const width = H * hd;
      const { N, qkv } = packedInputs(lengths, width, 7);
      const tqkv = tf.tensor2d(qkv, [N, 3 * width]);
      const layout = packedLayout(lengths);
      const slopes = new Float32Array(H).fill(0.1);
      packedAttention(tqkv, layout, { numHeads: H, scale: 1, alibiSlopes: slopes }).dispose();
      const before = tf.memory().numTensors;
      packedAttention(tqkv, layout, { numHeads: H, scale: 1 }).dispose();
      // A new array with the same slopes reuses the cached ALiBi bias.
      packedAttention(tqkv, layout, { numHeads: H, scale: 1, alibiSlopes: Float32Array.from(slopes) }).dispose();
      expect(tf.memory().numTensors).toBe(before);
      layout.dispose();
      expect(tf.memory().numTensors).toBeLessThan(before);
      tqkv.dispose();
    });

    it('with rotary tables: attention of q and k rotated at their positions, as rotaryQkv rotates them', () => {
      const [H, hd] = [3, 8];
      const width = H * hd;
      const { N, qkv } = packedInputs(lengths, width, 8);
      const invFreq = Float32Array.from({ length: hd / 2 }, (_, i) => 1 / 10000 ** ((2 * i) / hd));
      const rotary = tables(invFreq, 32);
      const layout = packedLayout(lengths);
      const tqkv = tf.tensor2d(qkv, [N, 3 * width]);
      const fused = packedAttention(tqkv, layout, { numHeads: H, scale: 0.5, rotary }).dataSync();
      const rotated = rotaryQkv(tqkv, rotary.cos, rotary.sinSigned, layout.positionsTensor, H);
      expect(Array.from(fused)).toEqual(Array.from(packedAttention(rotated, layout, { numHeads: H, scale: 0.5 }).dataSync()));
      expect(maxAbsDiff(fused, packedAttention(tqkv, layout, { numHeads: H, scale: 0.5 }).dataSync())).toBeGreaterThan(1e-3);
      expectNoLeak(() => packedAttention(tqkv, layout, { numHeads: H, scale: 0.5, rotary }));
      expect(() => packedAttention(tqkv, layout, { numHeads: H, scale: 0.5, rotary: tables(invFreq.subarray(0, 2), 32) })).toThrow(/expected \[positions, 8\]/);
      tf.dispose([tqkv, rotated, rotary.cos, rotary.sinSigned]);
      layout.dispose();
    });

    it('rejects inconsistent shapes and slopes', () => {
      const layout = packedLayout([2, 3]);
      expect(() => packedAttention(tf.zeros([4, 24]) as tf.Tensor2D, layout, { numHeads: 2, scale: 1 })).toThrow(/qkv has 4 rows, layout has 5/);
      expect(() => packedAttention(tf.zeros([5, 24]) as tf.Tensor2D, layout, { numHeads: 5, scale: 1 })).toThrow(/not 3 × 5 heads/);
      expect(() => packedAttention(tf.zeros([5, 24]) as tf.Tensor2D, layout, { numHeads: 2, scale: 1, alibiSlopes: new Float32Array(3) })).toThrow(/3 ALiBi slopes for 2 heads/);
      layout.dispose();
    });
  });

  it('segmentMean of a segment is bit-identical wherever it sits in the batch (resume reproduces a run)', () => {
    const random = seededRandom(9);
    const d = 7;
    const target = randomArray(61 * d, random);
    const alone = segmentMean(tf.tensor2d(target, [61, d]), packedLayout([61]), 1, 1).dataSync();
    for (const before of [[3], [17], [47], [50], [3, 3, 30], [5, 12]]) {
      const rows = before.reduce((a, b) => a + b, 0);
      const other = randomArray(rows * d, random);
      for (const after of [[], [9, 4]]) {
        const tail = after.reduce((a, b) => a + b, 0);
        const x = new Float32Array((rows + 61 + tail) * d);
        x.set(other, 0);
        x.set(target, rows * d);
        x.set(randomArray(tail * d, random), (rows + 61) * d);
        const got = segmentMean(tf.tensor2d(x, [rows + 61 + tail, d]), packedLayout([...before, 61, ...after]), 1, 1).dataSync();
        expect(Array.from(got.slice(before.length * d, (before.length + 1) * d))).toEqual(Array.from(alone));
      }
    }
  });

  it('segmentMean averages each segment, optionally skipping its first/last rows', () => {
    const random = seededRandom(8);
    const lengths = [3, 6, 4, 1];
    const d = 5;
    const N = 14;
    const x = randomArray(N * d, random);
    const layout = packedLayout(lengths);
    for (const [skipStart, skipEnd] of [[0, 0], [1, 1]]) {
      const usable = skipStart + skipEnd === 0 ? lengths : lengths.slice(0, 3);
      const rows = usable.reduce((a, b) => a + b, 0);
      const sub = packedLayout(usable);
      const got = segmentMean(tf.tensor2d(x.subarray(0, rows * d), [rows, d]), sub, skipStart, skipEnd).dataSync();
      const expected: number[] = [];
      let offset = 0;
      for (const L of usable) {
        for (let c = 0; c < d; c++) {
          let sum = 0;
          for (let t = skipStart; t < L - skipEnd; t++) sum += x[(offset + t) * d + c];
          expected.push(sum / (L - skipStart - skipEnd));
        }
        offset += L;
      }
      expect(maxAbsDiff(got, expected)).toBeLessThan(1e-6);
      sub.dispose();
    }
    const tx = tf.tensor2d(x, [N, d]);
    expectNoLeak(() => segmentMean(tx, layout, 0, 0));
    expect(() => segmentMean(tx, layout, 1, 1)).toThrow(/segment 3 of length 1 has no rows left after skipping 1\+1/);
    expect(() => segmentMean(tf.zeros([N - 1, d]) as tf.Tensor2D, layout)).toThrow(/x has 13 rows, layout has 14/);
    tx.dispose();
    layout.dispose();
  });

  it('ops nest in tf.tidy like tfjs ops: intermediates are freed, the returned tensor survives', () => {
    const layout = packedLayout([4, 2, 6]);
    const [H, hd] = [2, 4];
    const width = H * hd;
    const tensors = {
      x: tf.tensor2d(randomArray(12 * width, seededRandom(40)), [12, width]),
      wqkv: tf.tensor2d(randomArray(width * 3 * width, seededRandom(41)), [width, 3 * width]),
      gamma: tf.ones([width]) as tf.Tensor1D,
      beta: tf.zeros([width]) as tf.Tensor1D,
    };
    const forward = () => tf.tidy(() => {
      const a = layerNorm(tensors.x, tensors.gamma, tensors.beta, 1e-5);
      const context = packedAttention(linear(a, tensors.wqkv), layout, { numHeads: H, scale: 0.5, alibiSlopes: Float32Array.from([0.5, 0.25]) });
      return segmentMean(linear(context, tf.eye(width) as tf.Tensor2D, undefined, { residual: tensors.x }), layout);
    });
    forward().dispose();
    const before = tf.memory().numTensors;
    const result = forward();
    expect(tf.memory().numTensors).toBe(before + 1);
    expect(result.shape).toEqual([3, width]);
    expect(result.isDisposed).toBe(false);
    result.dispose();
    layout.dispose();
    tf.dispose(Object.values(tensors));
  });
});

describe('packedLayout', () => {
  it('groups the segments of each length for attention, longest first, in batch order: nothing padded', () => {
    const lengths = [5, 1, 17, 9, 13, 17, 5];
    const layout = packedLayout(lengths);
    expect(layout.groups.map((g) => [g.segments, g.length])).toEqual([[[2, 5], 17], [[4], 13], [[3], 9], [[0, 6], 5], [[1], 1]]);
    // Segment 2 starts after 5 + 1 rows, segment 5 after 5 + 1 + 17 + 9 + 13.
    expect(Array.from(layout.groups[0].rows.dataSync())).toEqual([...Array.from({ length: 17 }, (_, t) => 6 + t), ...Array.from({ length: 17 }, (_, t) => 45 + t)]);
    const back = Array.from(layout.fromGroups.dataSync());
    expect(back.slice(0, 6)).toEqual([34 + 13 + 9, 34 + 13 + 9 + 1, 34 + 13 + 9 + 2, 34 + 13 + 9 + 3, 34 + 13 + 9 + 4, 34 + 13 + 9 + 10]);
    expect([...back].sort((x, y) => x - y)).toEqual(Array.from({ length: 67 }, (_, i) => i));
    expect(packedLayout([4, 4]).isIdentity).toBe(true);
    expect(packedLayout([4, 5]).isIdentity).toBe(false);
    expect(packedLayout([9, 9, 4]).isIdentity).toBe(true); // already longest first
    expect(packedLayout([4, 9]).isIdentity).toBe(false);
  });

  it('records offsets, per-segment positions and rejects empty segments', () => {
    const layout = packedLayout([2, 3]);
    expect(layout.offsets).toEqual([0, 2, 5]);
    expect(layout.offsetsTensor.dtype).toBe('int32');
    expect(Array.from(layout.offsetsTensor.dataSync())).toEqual([0, 2, 5]);
    expect(layout.offsetsTensor).toBe(layout.offsetsTensor); // cached
    expect(Array.from(layout.positions)).toEqual([0, 1, 0, 1, 2]);
    expect(Array.from(layout.segmentOf)).toEqual([0, 0, 1, 1, 1]);
    expect(layout.maxLength).toBe(3);
    layout.dispose();
    expect(() => layout.fromGroups).toThrow(/after dispose/);
    expect(() => layout.offsetsTensor).toThrow(/after dispose/);
    expect(() => packedLayout([2, 0])).toThrow(/positive integer/);
    expect(() => packedLayout([])).toThrow(/at least one/);
  });
});
