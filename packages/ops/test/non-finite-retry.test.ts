import '@tensorflow/tfjs-backend-cpu';
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { retryNonFiniteInFullPrecision } from '../src/index.js';

const vec = (...values: number[]) => Float32Array.from(values);

describe('retryNonFiniteInFullPrecision', () => {
  beforeAll(async () => {
    await tf.setBackend('cpu');
  });

  it('passes finite batches through without loading a full-precision model', async () => {
    let loads = 0;
    const retry = retryNonFiniteInFullPrecision(async (items: number[]) => items.map((x) => vec(x, x)), async () => {
      loads++;
      return async () => [];
    });
    expect(await retry.embed([1, 2])).toEqual([vec(1, 1), vec(2, 2)]);
    expect(loads).toBe(0);
    expect(retry.recomputed()).toBe(0);
  });

  it('recomputes a batch holding a NaN or an Inf with the full-precision model, loaded once, and counts each batch', async () => {
    let loads = 0;
    const reduced = async (items: number[]) => items.map((x) => (x === 3 ? vec(NaN, 0) : x === 4 ? vec(0, Infinity) : vec(x, 0)));
    const retry = retryNonFiniteInFullPrecision(reduced, async () => {
      loads++;
      return async (items: number[]) => items.map((x) => vec(x, 1));
    });
    expect(await retry.embed([1, 3])).toEqual([vec(1, 1), vec(3, 1)]);
    expect(await retry.embed([5])).toEqual([vec(5, 0)]);
    expect(await retry.embed([4, 2])).toEqual([vec(4, 1), vec(2, 1)]);
    expect(loads).toBe(1);
    expect(retry.recomputed()).toBe(2);
  });
});
