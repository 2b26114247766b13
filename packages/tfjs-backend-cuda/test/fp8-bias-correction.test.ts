import { describe, expect, it } from 'vitest';
import { fp8CorrectedBias } from '../src/fp8-bias-correction.js';
import { fp8SequenceCorrection } from '../src/fp8-sequence-correction.js';
import { e4m3ToNumber, quantizeE4M3 } from '../src/fp8.js';

function random(n: number, seed: number, lo = -1, hi = 1): Float64Array {
  let x = seed >>> 0 || 1;
  return Float64Array.from({ length: n }, () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return lo + (x / 2 ** 32) * (hi - lo);
  });
}

/** The weight as an FP8 GEMM multiplies by it (per output channel, or one scale), through src/fp8.ts' quantizeE4M3. */
function rounded(w: Float64Array, inner: number, cols: number, perTensor: boolean): Float64Array {
  const out = new Float64Array(w.length);
  if (perTensor) {
    const { bits, scale } = quantizeE4M3(w);
    bits.forEach((b, i) => (out[i] = e4m3ToNumber(b) * scale));
    return out;
  }
  for (let c = 0; c < cols; c++) {
    const { bits, scale } = quantizeE4M3(Array.from({ length: inner }, (_, k) => w[k * cols + c]));
    bits.forEach((b, k) => (out[k * cols + c] = e4m3ToNumber(b) * scale));
  }
  return out;
}

function rowTimes(x: ArrayLike<number>, w: ArrayLike<number>, inner: number, cols: number): Float64Array {
  const y = new Float64Array(cols);
  for (let k = 0; k < inner; k++) for (let c = 0; c < cols; c++) y[c] += x[k] * w[k * cols + c];
  return y;
}

describe('fp8CorrectedBias', () => {
  for (const perTensor of [false, true]) {
    it(`gives the mean input row the exact weight's output through the rounded weight (${perTensor ? 'per tensor' : 'per channel'})`, () => {
      const [inner, cols] = [48, 24];
      // Columns of different sizes, so per-tensor and per-channel rounding differ.
      const w = random(inner * cols, 3, -0.05, 0.05).map((v, i) => v * (1 + (i % cols)));
      const mean = random(inner, 5, -0.5, 1.5);
      const bias = random(cols, 7);
      const corrected = fp8CorrectedBias(w, inner, cols, mean, bias, perTensor);
      const exact = rowTimes(mean, w, inner, cols).map((v, c) => v + bias[c]);
      const viaFp8 = rowTimes(mean, rounded(w, inner, cols, perTensor), inner, cols).map((v, c) => v + corrected[c]);
      const uncorrected = rowTimes(mean, rounded(w, inner, cols, perTensor), inner, cols).map((v, c) => v + bias[c]);
      for (let c = 0; c < cols; c++) expect(viaFp8[c]).toBeCloseTo(exact[c], 10);
      // …which the plain bias does not (the test can fail): the rounding moved the output.
      expect(Math.max(...uncorrected.map((v, c) => Math.abs(v - exact[c])))).toBeGreaterThan(1e-4);
    });
  }

  it('leaves the bias of a weight E4M3 holds exactly, and makes one from nothing where there is none', () => {
    const [inner, cols] = [16, 8];
    const w = rounded(random(inner * cols, 11, -2, 2), inner, cols, false);
    const mean = random(inner, 13);
    const bias = random(cols, 17);
    expect(Array.from(fp8CorrectedBias(w, inner, cols, mean, bias, false))).toEqual(Array.from(bias));
    const noBias = fp8CorrectedBias(random(inner * cols, 19), inner, cols, mean, undefined, false);
    expect(noBias.some((v) => v !== 0)).toBe(true);
  });

  it('takes the output shift on the mean row only, not on a row far from it', () => {
    const [inner, cols] = [64, 16];
    const w = random(inner * cols, 23, -0.1, 0.1);
    const mean = random(inner, 29, 0.5, 1.5); // a mean input row with a large common component
    const bias = random(cols, 31);
    const corrected = fp8CorrectedBias(w, inner, cols, mean, bias, false);
    const q = rounded(w, inner, cols, false);
    const error = (x: Float64Array, b: ArrayLike<number>) => {
      const got = rowTimes(x, q, inner, cols).map((v, c) => v + b[c]);
      const want = rowTimes(x, w, inner, cols).map((v, c) => v + bias[c]);
      return Math.hypot(...got.map((v, c) => v - want[c]));
    };
    // A row near the mean: the corrected bias leaves a much smaller error than the plain one.
    const near = mean.map((m, k) => m + 0.05 * random(inner, 37)[k]);
    expect(error(near, corrected)).toBeLessThan(0.5 * error(near, bias));
  });
});

describe('fp8SequenceCorrection', () => {
  const [inner, cols] = [32, 16];
  const w = random(inner * cols, 23, -0.05, 0.05).map((v, i) => v * (1 + (i % cols)));
  // Three sequences whose rows share a large offset of their own (as a model's residual streams do).
  const offsets = [0, 5, 6, 13];
  const x = Float64Array.from({ length: 13 * inner }, (_, i) => {
    const row = Math.floor(i / inner);
    const s = offsets.findIndex((o, j) => row >= o && row < offsets[j + 1]);
    return random(1, 29 + i)[0] + (s + 1) * Math.sin(i % inner);
  });
  const rowsOf = (s: number) => x.subarray(offsets[s] * inner, offsets[s + 1] * inner);
  const meanOf = (rows: Float64Array, n: number) => Float64Array.from({ length: inner }, (_, k) => Array.from({ length: n }, (_, r) => rows[r * inner + k]).reduce((a, b) => a + b, 0) / n);

  for (const perTensor of [false, true]) {
    it(`gives each sequence's mean output row through the rounded weight the exact weight's (${perTensor ? 'per tensor' : 'per channel'})`, () => {
      const correction = fp8SequenceCorrection(x, offsets, w, inner, cols, perTensor);
      const q = rounded(w, inner, cols, perTensor);
      for (let s = 0; s < 3; s++) {
        const mean = meanOf(rowsOf(s), offsets[s + 1] - offsets[s]);
        const exact = rowTimes(mean, w, inner, cols);
        const viaFp8 = rowTimes(mean, q, inner, cols).map((v, c) => v + correction[s * cols + c]);
        for (let c = 0; c < cols; c++) expect(viaFp8[c]).toBeCloseTo(exact[c], 10);
        // One calibrated mean (here: the first sequence's) would leave the others' means off.
        if (s > 0) {
          const calibrated = rowTimes(mean, q, inner, cols).map((v, c) => v + correction[c]);
          expect(Math.max(...calibrated.map((v, c) => Math.abs(v - exact[c])))).toBeGreaterThan(1e-4);
        }
      }
    });
  }

  it("gives a sequence the same rows whatever its neighbours (alone, or packed after others)", () => {
    const packed = fp8SequenceCorrection(x, offsets, w, inner, cols, false);
    const alone = fp8SequenceCorrection(rowsOf(2), [0, 7], w, inner, cols, false);
    expect(Array.from(alone)).toEqual(Array.from(packed.subarray(2 * cols, 3 * cols)));
  });
});
