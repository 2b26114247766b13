import { describe, expect, it } from 'vitest';
import { e4m3Max, e4m3ToNumber, numberToE4M3, quantizeE4M3 } from '../src/fp8.js';
import { attentionFp8OutputScale, attentionOutputMargin, columnL2Norms, geluFp8OutputScale, geluNegativeBound, layerNormFp8Bounds } from '../src/fp8-static-scales.js';

let seed = 7;
function random(n: number, lo = -1, hi = 1): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    out[i] = lo + (seed / 2 ** 32) * (hi - lo);
  }
  return out;
}

/** A layer norm of one row in fp64 (no eps: the largest |x̂| a row can reach). */
function layerNorm(x: Float32Array, gamma: Float32Array, beta: Float32Array): Float64Array {
  const d = x.length;
  const mean = x.reduce((a, v) => a + v, 0) / d;
  const variance = x.reduce((a, v) => a + (v - mean) ** 2, 0) / d;
  return Float64Array.from(x, (v, i) => ((v - mean) / Math.sqrt(variance)) * gamma[i] + beta[i]);
}

const gelu = (v: number) => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3)));
const e4m3 = (v: number, scale: number) => e4m3ToNumber(numberToE4M3(v / scale)) * scale;

describe('layerNormFp8Bounds', () => {
  const d = 256;
  const gamma = random(d, -1.5, 1.5);
  const beta = random(d, -0.3, 0.3);
  const { scale, l2 } = layerNormFp8Bounds(gamma, beta);

  it('bounds every output of random rows: nothing saturates, and a typical value lands well inside the normal range', () => {
    for (let r = 0; r < 50; r++) {
      const y = layerNorm(random(d, -3, 3), gamma, beta);
      for (const v of y) expect(Math.abs(v) / scale).toBeLessThanOrEqual(e4m3Max);
      const rounded = Array.from(y, (v) => e4m3(v, scale));
      expect(Math.hypot(...rounded)).toBeLessThanOrEqual(l2);
      const rms = Math.sqrt(y.reduce((a, v) => a + v * v, 0) / d);
      expect(rms / scale).toBeGreaterThan(2 ** 2); // far above E4M3's smallest normal, 2⁻⁶
    }
  });

  it('is reached by the worst row: all of its spread in one element maps to 448', () => {
    const flat = new Float32Array(d).fill(1);
    const g = new Float32Array(d).fill(0.5);
    const b = new Float32Array(d);
    const x = new Float32Array(d);
    x[3] = 1000; // x̂[3] = √(d − 1)
    const bounds = layerNormFp8Bounds(g, b);
    const y = layerNorm(x, g, b);
    expect(Math.abs(y[3]) / bounds.scale).toBeCloseTo(e4m3Max, 2);
    expect(Math.hypot(...y)).toBeLessThanOrEqual(bounds.l2);
    expect(layerNormFp8Bounds(flat, b).scale).toBe(Math.fround(Math.fround(Math.sqrt(d - 1)) / e4m3Max));
  });
});

describe('geluFp8OutputScale', () => {
  const [inner, cols] = [64, 48];
  const w = random(inner * cols, -0.2, 0.2);
  const bias = random(cols, -0.5, 0.5);
  const weight = quantizeE4M3(w);
  const w8 = Float32Array.from(weight.bits, (q) => e4m3ToNumber(q) * weight.scale);
  const inputL2 = 9;
  const scale = geluFp8OutputScale(columnL2Norms(w, inner, cols), bias, inner, weight.scale, inputL2);
  const output = (x: ArrayLike<number>, c: number) => {
    let sum = bias[c];
    for (let k = 0; k < inner; k++) sum += x[k] * w8[k * cols + c];
    return gelu(sum);
  };

  it('bounds GELU(x·W + b) for every x within the 2-norm bound, the aligned worst case included', () => {
    for (let r = 0; r < 30; r++) {
      const x = random(inner);
      const norm = Math.hypot(...x);
      const xs = Array.from(x, (v) => (v / norm) * inputL2);
      for (let c = 0; c < cols; c++) expect(Math.abs(output(xs, c)) / scale).toBeLessThanOrEqual(e4m3Max);
    }
    let worst = 0;
    for (let c = 0; c < cols; c++) {
      const column = Array.from({ length: inner }, (_, k) => w8[k * cols + c]);
      const norm = Math.hypot(...column);
      const aligned = column.map((v) => (v / norm) * inputL2 * Math.sign(bias[c] || 1));
      worst = Math.max(worst, Math.abs(output(aligned, c)) / scale);
    }
    expect(worst).toBeLessThanOrEqual(e4m3Max);
    expect(worst).toBeGreaterThan(e4m3Max * 0.85); // tight up to the rounding margins
  });

  it('never goes below the bound of GELU on negative inputs', () => {
    const zero = geluFp8OutputScale(new Float32Array(cols), undefined, inner, 1, inputL2);
    expect(zero).toBe(Math.fround(Math.fround(geluNegativeBound) / e4m3Max));
  });
});

describe('attentionFp8OutputScale', () => {
  const [inner, d] = [64, 16];
  const cols = 3 * d;
  const w = random(inner * cols, -0.2, 0.2);
  const bias = random(cols, -0.5, 0.5);
  const weight = quantizeE4M3(w);
  const w8 = Float32Array.from(weight.bits, (q) => e4m3ToNumber(q) * weight.scale);
  const inputL2 = 9;
  const scale = attentionFp8OutputScale(columnL2Norms(w, inner, cols), bias, inner, weight.scale, inputL2);
  const qkvColumn = (x: ArrayLike<number>, c: number) => {
    let sum = bias[c];
    for (let k = 0; k < inner; k++) sum += x[k] * w8[k * cols + c];
    return sum;
  };
  const rowWithNorm = (x: Float32Array, norm: number) => {
    const length = Math.hypot(...x);
    return Array.from(x, (v) => (v / length) * norm);
  };

  it('bounds every softmax-weighted mix of value rows whose inputs are within the 2-norm bound', () => {
    for (let trial = 0; trial < 20; trial++) {
      const tokens = Array.from({ length: 1 + (trial % 7) }, () => rowWithNorm(random(inner), inputL2 * (0.2 + 0.8 * Math.abs(random(1)[0]))));
      const logits = random(tokens.length, -4, 4);
      const weights = Array.from(logits, Math.exp);
      const total = weights.reduce((a, v) => a + v, 0);
      for (let c = 0; c < d; c++) {
        const out = tokens.reduce((a, x, j) => a + (weights[j] / total) * qkvColumn(x, 2 * d + c), 0);
        expect(Math.abs(out) / scale).toBeLessThanOrEqual(e4m3Max);
      }
    }
  });

  it('is reached, up to its margin, by one token aligned with the largest value column', () => {
    let worst = 0;
    for (let c = 2 * d; c < cols; c++) {
      const column = Array.from({ length: inner }, (_, k) => w8[k * cols + c]);
      const norm = Math.hypot(...column);
      worst = Math.max(worst, Math.abs(qkvColumn(column.map((v) => (v / norm) * inputL2 * Math.sign(bias[c] || 1)), c)) / scale);
    }
    expect(worst).toBeLessThanOrEqual(e4m3Max / attentionOutputMargin);
    expect(worst).toBeGreaterThan(e4m3Max * 0.85);
  });

  it('ignores the q and k columns', () => {
    const norms = columnL2Norms(w, inner, cols);
    const louder = Float32Array.from(norms, (v, c) => (c < 2 * d ? v * 100 : v));
    expect(attentionFp8OutputScale(louder, bias, inner, weight.scale, inputL2)).toBe(scale);
  });
});

describe('columnL2Norms', () => {
  it('is the 2-norm of each column of a row-major matrix', () => {
    const w = Float32Array.of(3, 1, 4, 2);
    expect(Array.from(columnL2Norms(w, 2, 2))).toEqual([5, Math.fround(Math.sqrt(5))]);
  });
});
