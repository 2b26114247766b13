import * as tf from '@tensorflow/tfjs-core';
import { geglu, linear } from '@virnucpro/ops';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randoms } from './randoms.js';
import { ONEDNN_BACKEND, OnednnBackend, probeOnednn } from '../src/index.js';

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

  it('one thread and two give the same bytes', async () => {
    const bytes: Buffer[] = [];
    for (const threads of [1, 2]) {
      tf.removeBackend(ONEDNN_BACKEND); // a new instance with its thread count
      tf.registerBackend(ONEDNN_BACKEND, () => new OnednnBackend({ threads }), 2);
      await tf.setBackend(ONEDNN_BACKEND);
      bytes.push(Buffer.from(rowsOf(0, total).buffer), Buffer.from(gegluOf(0, total).buffer));
    }
    expect(bytes[0].equals(bytes[2])).toBe(true);
    expect(bytes[1].equals(bytes[3])).toBe(true);
  });
});
