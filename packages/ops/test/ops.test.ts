import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { gelu, initBackend, layerNorm, linear, packedAttention, packedLayout, segmentMean, type BackendName } from '../src/index.js';
import { erf, maxAbsDiff, randomArray, refAttention, refGelu, refLayerNorm, refLinear, seededRandom } from './reference.js';

describe('reference erf', () => {
  it('matches known values', () => {
    expect(erf(0.5)).toBeCloseTo(0.5204998778130465, 14);
    expect(erf(-1)).toBeCloseTo(-0.8427007929497149, 14);
    expect(erf(3.5)).toBeCloseTo(0.9999992569016276, 14);
  });
});

describe.each<BackendName>(['cpu', 'wasm'])('ops on %s', (backend) => {
  beforeAll(async () => {
    expect(await initBackend(backend)).toBe(backend);
  });

  it('linear = x·wT + b, with and without bias', () => {
    const random = seededRandom(1);
    const [rows, inner, cols] = [37, 48, 29];
    const x = randomArray(rows * inner, random);
    const w = randomArray(inner * cols, random);
    const b = randomArray(cols, random);
    const withBias = linear(tf.tensor2d(x, [rows, inner]), tf.tensor2d(w, [inner, cols]), tf.tensor1d(b));
    expect(withBias.shape).toEqual([rows, cols]);
    expect(maxAbsDiff(withBias.dataSync(), refLinear(x, w, b, rows, inner, cols))).toBeLessThan(1e-5);
    const noBias = linear(tf.tensor2d(x, [rows, inner]), tf.tensor2d(w, [inner, cols]));
    expect(maxAbsDiff(noBias.dataSync(), refLinear(x, w, undefined, rows, inner, cols))).toBeLessThan(1e-5);
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
  });

  it('gelu is the exact erf form (not the tanh approximation)', () => {
    const x = Float32Array.from({ length: 401 }, (_, i) => -8 + i * 0.04);
    const y = gelu(tf.tensor1d(x)).dataSync();
    expect(maxAbsDiff(y, refGelu(x))).toBeLessThan(2e-6);
    // The tanh form differs from erf by up to ~5e-4 near |x|≈2; make sure we are not it.
    const tanhForm = x.map((v) => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3))));
    expect(maxAbsDiff(y, tanhForm)).toBeGreaterThan(1e-4);
  });

  describe('packedAttention', () => {
    const H = 4;
    const hd = 8;
    const width = H * hd;
    const lengths = [5, 1, 17, 9, 12];

    function packedInputs(seed: number) {
      const random = seededRandom(seed);
      const N = lengths.reduce((a, b) => a + b, 0);
      return { N, q: randomArray(N * width, random, 2), k: randomArray(N * width, random, 2), v: randomArray(N * width, random) };
    }

    for (const [alibi, maxPadRatio] of [[false, 2], [true, 2], [false, 1], [true, Infinity]] as const) {
      it(`equals per-segment naive attention${alibi ? ' with ALiBi' : ''}, maxPadRatio ${maxPadRatio}`, () => {
        const { N, q, k, v } = packedInputs(alibi ? 4 : 3);
        const slopes = alibi ? Float32Array.from([0.5, 0.25, 0.70710678, 0.125]) : undefined;
        const scale = 1 / Math.sqrt(hd);
        const layout = packedLayout(lengths, { maxPadRatio });
        const out = packedAttention(tf.tensor2d(q, [N, width]), tf.tensor2d(k, [N, width]), tf.tensor2d(v, [N, width]), layout, {
          numHeads: H, scale, alibiSlopes: slopes,
        });
        expect(out.shape).toEqual([N, width]);
        const got = out.dataSync();
        let offset = 0;
        for (const L of lengths) {
          const part = (a: Float32Array) => a.subarray(offset * width, (offset + L) * width);
          const expected = refAttention(part(q), part(k), part(v), L, H, hd, scale, slopes);
          expect(maxAbsDiff(got.subarray(offset * width, (offset + L) * width), expected)).toBeLessThan(1e-5);
          offset += L;
        }
        layout.dispose();
      });
    }

    it('packed result equals running each segment alone (no attention across segments)', () => {
      const { N, q, k, v } = packedInputs(5);
      const layout = packedLayout(lengths);
      const packed = packedAttention(tf.tensor2d(q, [N, width]), tf.tensor2d(k, [N, width]), tf.tensor2d(v, [N, width]), layout, { numHeads: H, scale: 0.3 }).dataSync();
      let offset = 0;
      for (const L of lengths) {
        const slice = (a: Float32Array) => tf.tensor2d(a.slice(offset * width, (offset + L) * width), [L, width]);
        const single = packedLayout([L]);
        const alone = packedAttention(slice(q), slice(k), slice(v), single, { numHeads: H, scale: 0.3 }).dataSync();
        expect(maxAbsDiff(packed.subarray(offset * width, (offset + L) * width), alone)).toBeLessThan(1e-6);
        single.dispose();
        offset += L;
      }
      layout.dispose();
    });

    it('a change in one segment does not leak into another', () => {
      const { N, q, k, v } = packedInputs(6);
      const layout = packedLayout(lengths);
      const run = (vv: Float32Array) =>
        packedAttention(tf.tensor2d(q, [N, width]), tf.tensor2d(k, [N, width]), tf.tensor2d(vv, [N, width]), layout, { numHeads: H, scale: 1 }).dataSync();
      const before = run(v);
      const changed = v.slice();
      for (let i = 0; i < lengths[0] * width; i++) changed[i] += 10; // segment 0 only
      const after = run(changed);
      expect(maxAbsDiff(before.subarray(lengths[0] * width), after.subarray(lengths[0] * width))).toBe(0);
      expect(maxAbsDiff(before.subarray(0, lengths[0] * width), after.subarray(0, lengths[0] * width))).toBeGreaterThan(1);
      layout.dispose();
    });

    it('does not leak tensors beyond the layout it owns', () => {
      const { N, q, k, v } = packedInputs(7);
      const [tq, tk, tv] = [tf.tensor2d(q, [N, width]), tf.tensor2d(k, [N, width]), tf.tensor2d(v, [N, width])];
      const layout = packedLayout(lengths);
      packedAttention(tq, tk, tv, layout, { numHeads: H, scale: 1, alibiSlopes: new Float32Array(H).fill(0.1) }).dispose();
      const before = tf.memory().numTensors;
      packedAttention(tq, tk, tv, layout, { numHeads: H, scale: 1 }).dispose();
      expect(tf.memory().numTensors).toBe(before);
      layout.dispose();
      expect(tf.memory().numTensors).toBeLessThan(before);
      tf.dispose([tq, tk, tv]);
    });
  });

  it('segmentMean of a segment is bit-identical wherever it sits in the batch (resume reproduces a run)', () => {
    const random = seededRandom(9);
    const d = 7;
    const target = randomArray(61 * d, random);
    const alone = segmentMean(tf.tensor2d(target, [61, d]), packedLayout([61]), 1, 1).dataSync();
    for (const before of [3, 17, 47, 50]) {
      const other = randomArray(before * d, random);
      const x = new Float32Array((before + 61) * d);
      x.set(other, 0);
      x.set(target, before * d);
      const got = segmentMean(tf.tensor2d(x, [before + 61, d]), packedLayout([before, 61]), 1, 1).dataSync().slice(d);
      expect(Array.from(got)).toEqual(Array.from(alone));
    }
  });

  it('segmentMean averages each segment, optionally skipping its first/last rows', () => {
    const random = seededRandom(8);
    const lengths = [3, 6, 4];
    const d = 5;
    const N = 13;
    const x = randomArray(N * d, random);
    const layout = packedLayout(lengths);
    for (const [skipStart, skipEnd] of [[0, 0], [1, 1]]) {
      const got = segmentMean(tf.tensor2d(x, [N, d]), layout, skipStart, skipEnd).dataSync();
      const expected: number[] = [];
      let offset = 0;
      for (const L of lengths) {
        for (let c = 0; c < d; c++) {
          let sum = 0;
          for (let t = skipStart; t < L - skipEnd; t++) sum += x[(offset + t) * d + c];
          expected.push(sum / (L - skipStart - skipEnd));
        }
        offset += L;
      }
      expect(maxAbsDiff(got, expected)).toBeLessThan(1e-6);
    }
    layout.dispose();
  });
});

describe('packedLayout', () => {
  it('groups segments of similar length for attention', () => {
    const lengths = [5, 1, 17, 9, 13, 17];
    expect(packedLayout(lengths, { maxPadRatio: Infinity }).groups.map((g) => g.segments)).toEqual([[2, 5, 4, 3, 0, 1]]);
    expect(packedLayout(lengths, { maxPadRatio: 1 }).groups.map((g) => g.segments)).toEqual([[2, 5], [4], [3], [0], [1]]);
    // (17/13)² = 1.7 ≤ 2 joins; (17/9)² = 3.6 starts a new group; (9/5)² = 3.2 too.
    const layout = packedLayout(lengths);
    expect(layout.groups.map((g) => [g.segments, g.maxLength])).toEqual([[[2, 5, 4], 17], [[3], 9], [[0], 5], [[1], 1]]);
    expect(layout.paddedRows).toBe(17 * 3 + 9 + 5 + 1);
    expect(layout.groups[1].keyMask).toBeNull();
    expect(Array.from(layout.groups[0].toPadded.dataSync()).slice(0, 3)).toEqual([6, 7, 8]); // segment 2 starts after 5 + 1 rows
    expect(packedLayout([4, 4]).isIdentity).toBe(true);
    expect(packedLayout([4, 5]).isIdentity).toBe(false);
  });

  it('records offsets, per-segment positions and rejects empty segments', () => {
    const layout = packedLayout([2, 3]);
    expect(layout.offsets).toEqual([0, 2, 5]);
    expect(Array.from(layout.positions)).toEqual([0, 1, 0, 1, 2]);
    expect(Array.from(layout.segmentOf)).toEqual([0, 0, 1, 1, 1]);
    expect(layout.maxLength).toBe(3);
    layout.dispose();
    expect(() => layout.fromPadded).toThrow(/after dispose/);
    expect(() => packedLayout([2, 0])).toThrow(/positive integer/);
    expect(() => packedLayout([])).toThrow(/at least one/);
  });
});

describe('Dawn flags from the environment', () => {
  it('reads the JSON array a worker is started with, and rejects anything else', async () => {
    const { dawnFlagsFromEnv } = await import('../src/index.js');
    expect(dawnFlagsFromEnv({})).toEqual([]);
    expect(dawnFlagsFromEnv({ VIRNUCPRO_DAWN_FLAGS: '["backend=vulkan","adapter=NVIDIA H200"]' })).toEqual(['backend=vulkan', 'adapter=NVIDIA H200']);
    expect(() => dawnFlagsFromEnv({ VIRNUCPRO_DAWN_FLAGS: '{"a":1}' })).toThrow(/JSON array of strings/);
  });
});
