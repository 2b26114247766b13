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

  it('recomputes only the items holding a NaN or an Inf, with the full-precision model loaded once, and counts them', async () => {
    let loads = 0;
    const fullCalls: number[][] = [];
    const reduced = async (items: number[]) => items.map((x) => (x === 3 || x === 6 ? vec(NaN, 0) : x === 4 ? vec(0, Infinity) : vec(x, 0)));
    const retry = retryNonFiniteInFullPrecision(reduced, async () => {
      loads++;
      return async (items: number[]) => { fullCalls.push(items); return items.map((x) => vec(x, 1)); };
    });
    expect(await retry.embed([1, 3])).toEqual([vec(1, 0), vec(3, 1)]);
    expect(await retry.embed([5])).toEqual([vec(5, 0)]);
    expect(await retry.embed([4, 2, 6])).toEqual([vec(4, 1), vec(2, 0), vec(6, 1)]);
    expect(loads).toBe(1);
    expect(fullCalls).toEqual([[3], [4, 6]]);
    expect(retry.recomputed()).toBe(3);
  });

  it('gives an item the same vector whatever overflowed beside it (batch invariance)', async () => {
    const reduced = async (items: number[]) => items.map((x) => (x < 0 ? vec(NaN) : vec(x + 0.5)));
    const retry = retryNonFiniteInFullPrecision(reduced, async () => async (items: number[]) => items.map((x) => vec(x)));
    const [alone] = await retry.embed([7]);
    const [, besideOverflow] = await retry.embed([-1, 7]);
    expect(besideOverflow).toEqual(alone);
  });
});
