import * as tf from '@tensorflow/tfjs-core';
import { geglu, layerNorm, linear, packedAttention, packedLayout } from '@virnucpro/ops';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randoms } from './randoms.js';
import { ONEDNN_BACKEND, OnednnBackend, probeOnednn } from '../src/index.js';
import { splitByCost } from '../src/row-jobs.js';

const probe = probeOnednn();


// The rows of a linear layer at ESM-2 3B's K: oneDNN alone gives rows of a call with few rows other low bits
// than the same rows inside a larger call (measured for M ≤ 40 at K = 2560); the 128-row calls must not.
describe.skipIf(!probe.ok)('onednn linear rows do not depend on the batch or the thread count', () => {
  const k = 2560, n = 48, total = 300;
  const x = randoms(total * k, 11), w = randoms(k * n, 12).map((v) => v * 0.05), b = randoms(n, 13);
  beforeAll(async () => {
    tf.env().set('PROD', true);
    await tf.setBackend(ONEDNN_BACKEND);
  });
  afterAll(() => {
    tf.removeBackend(ONEDNN_BACKEND);
    tf.registerBackend(ONEDNN_BACKEND, () => new OnednnBackend(), 2);
  });

  // With an epilogue (bias, GELU) the GEMM writes into the arena; without one, straight into the output.
  const rowsOf = (from: number, count: number, epilogue = true): Float32Array => {
    const y = tf.tidy(() => {
      const xs = tf.tensor2d(x.subarray(from * k, (from + count) * k), [count, k]);
      return epilogue ? linear(xs, tf.tensor2d(w, [k, n]), tf.tensor1d(b), { activation: 'gelu' }) : linear(xs, tf.tensor2d(w, [k, n]));
    });
    const values = y.dataSync() as Float32Array;
    y.dispose();
    return values;
  };

  it.each([true, false])('a block of rows alone, at any offset of a larger batch, gives the same bytes (bias and GELU: %s)', (epilogue) => {
    const batch = rowsOf(0, total, epilogue);
    for (const [from, count] of [[0, 1], [5, 7], [100, 40], [127, 2], [128, 1], [170, 130], [299, 1]]) {
      expect(Buffer.from(rowsOf(from, count, epilogue).buffer).equals(Buffer.from(batch.buffer, from * n * 4, count * n * 4)), `rows ${from}..${from + count - 1}`).toBe(true);
    }
  });

  // GeGLU of a bias-free linear: the linear leaves its output on a SharedArrayBuffer and the GeGLU splits its rows
  // among the helper threads; each row must come out as the one-thread kernel makes it from the same values.
  const gegluOf = (from: number, count: number): Float32Array => {
    const y = tf.tidy(() => geglu(linear(tf.tensor2d(x.subarray(from * k, (from + count) * k), [count, k]), tf.tensor2d(w, [k, n]))));
    const values = y.dataSync() as Float32Array;
    y.dispose();
    return values;
  };

  it('GeGLU on the helper threads: rows at any offset, and the bytes of the kernel on one thread', () => {
    const f = n / 2;
    const batch = gegluOf(0, total);
    for (const [from, count] of [[0, 1], [5, 7], [127, 2], [170, 130], [299, 1]]) {
      expect(Buffer.from(gegluOf(from, count).buffer).equals(Buffer.from(batch.buffer, from * f * 4, count * f * 4)), `rows ${from}..${from + count - 1}`).toBe(true);
    }
    // The same values in a tensor of the caller's own (not shared): the one-thread path.
    const plain = tf.tidy(() => geglu(tf.tensor2d(rowsOf(0, total, false), [total, n])));
    expect(Buffer.from((plain.dataSync() as Float32Array).buffer).equals(Buffer.from(batch.buffer))).toBe(true);
    plain.dispose();
  });

  it('values read from a tensor on a shared buffer stay when the buffer is reused', () => {
    const first = rowsOf(0, total, false);
    const kept = Float32Array.from(first);
    rowsOf(100, 200, false); // takes the disposed tensor's buffer
    expect(Buffer.from(first.buffer).equals(Buffer.from(kept.buffer))).toBe(true);
  });

  // Layer norm, the linear epilogue and attention split their rows (attention: its segments) among the threads.
  const d = 96, heads = 3, lengths = [1, 66, 7, 130, 61, 2, 40];
  const pack = lengths.reduce((a, b) => a + b, 0);
  const qkv = randoms(pack * 3 * d, 14), g = randoms(d, 15), beta = randoms(d, 16);
  const slopes = Float32Array.of(0.5, 0.125, 0.03125);
  const layerNormOf = (from: number, count: number): Float32Array => {
    const y = tf.tidy(() => layerNorm(tf.tensor2d(qkv.subarray(from * d, (from + count) * d), [count, d]), tf.tensor1d(g), tf.tensor1d(beta), 1e-12));
    const values = y.dataSync() as Float32Array;
    y.dispose();
    return values;
  };
  const attentionOf = (segments: number[], withRotary: boolean): Float32Array => {
    const layout = packedLayout(segments);
    const first = lengths.slice(0, lengths.indexOf(segments[0])).reduce((a, b) => a + b, 0);
    const rows = layout.totalTokens, hd = d / heads;
    const y = tf.tidy(() => packedAttention(tf.tensor2d(qkv.subarray(first * 3 * d, (first + rows) * 3 * d), [rows, 3 * d]), layout, {
      numHeads: heads, scale: 1 / Math.sqrt(hd),
      ...(withRotary ? { rotary: { cos: tf.tensor2d(randoms(200 * hd, 17), [200, hd]), sinSigned: tf.tensor2d(randoms(200 * hd, 18), [200, hd]) } } : { alibiSlopes: slopes }),
    }));
    const values = y.dataSync() as Float32Array;
    y.dispose();
    layout.dispose();
    return values;
  };

  it('layer norm on the helper threads: rows at any offset give the bytes of the whole batch', () => {
    const batch = layerNormOf(0, pack);
    for (const [from, count] of [[0, 1], [5, 7], [127, 2], [170, 130], [pack - 1, 1]]) {
      expect(Buffer.from(layerNormOf(from, count).buffer).equals(Buffer.from(batch.buffer, from * d * 4, count * d * 4)), `rows ${from}..${from + count - 1}`).toBe(true);
    }
  });

  it.each([false, true])('attention split by segments among the threads: each segment alone gives its bytes in the pack (rotary: %s)', (withRotary) => {
    const batch = attentionOf(lengths, withRotary);
    let first = 0;
    for (const L of lengths) {
      expect(Buffer.from(attentionOf([L], withRotary).buffer).equals(Buffer.from(batch.buffer, first * d * 4, L * d * 4)), `segment of ${L} at row ${first}`).toBe(true);
      first += L;
    }
  });

  it('one thread and two give the same bytes', async () => {
    const bytes: Buffer[][] = [];
    for (const threads of [1, 2]) {
      tf.removeBackend(ONEDNN_BACKEND); // a new instance with its thread count
      tf.registerBackend(ONEDNN_BACKEND, () => new OnednnBackend({ threads }), 2);
      await tf.setBackend(ONEDNN_BACKEND);
      bytes.push([rowsOf(0, total), gegluOf(0, total), layerNormOf(0, pack), attentionOf(lengths, false), attentionOf(lengths, true)].map((v) => Buffer.from(v.buffer)));
    }
    bytes[0].forEach((one, i) => expect(one.equals(bytes[1][i]), `kernel ${i}`).toBe(true));
  });

  it('a slice sharing a shared buffer keeps its values when the tensor it came from is disposed', () => {
    // tfjs' cpu slice of contiguous rows is a view of its input: the buffer must not be reused while the view lives.
    const whole = tf.tidy(() => linear(tf.tensor2d(x.subarray(0, total * k), [total, k]), tf.tensor2d(w, [k, n])));
    const part = tf.slice(whole, [10, 0], [50, n]);
    const expected = Float32Array.from((whole.dataSync() as Float32Array).subarray(10 * n, 60 * n));
    whole.dispose();
    for (let i = 1; i <= 3; i++) rowsOf(i * 20, total - i * 20, false); // other values, in a recycled buffer if one is free
    expect(Buffer.from((part.dataSync() as Float32Array).buffer).equals(Buffer.from(expected.buffer))).toBe(true);
    part.dispose();
  });
});

describe('splitByCost', () => {
  it('cuts contiguous ranges that cover every item once, of about equal cost', () => {
    expect(splitByCost(10, 2, () => 1)).toEqual([{ from: 0, to: 5 }, { from: 5, to: 10 }]);
    expect(splitByCost(1, 3, () => 1)).toEqual([{ from: 0, to: 0 }, { from: 0, to: 1 }, { from: 1, to: 1 }]);
    const costs = [100, 1, 1, 1, 1, 50, 50];
    const ranges = splitByCost(costs.length, 2, (i) => costs[i]);
    expect(ranges).toEqual([{ from: 0, to: 3 }, { from: 3, to: 7 }]); // 102 and 102
    expect(splitByCost(0, 2, () => 1)).toEqual([{ from: 0, to: 0 }, { from: 0, to: 0 }]);
  });
});
