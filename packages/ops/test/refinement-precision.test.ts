import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { afterAll, describe, expect, it } from 'vitest';
import { inRefinementPrecision } from '../src/index.js';

describe('inRefinementPrecision', () => {
  afterAll(async () => {
    await tf.setBackend('cpu');
    tf.removeBackend('refine-test');
  });

  it('just runs the function on a backend with nothing more accurate to offer', async () => {
    await tf.setBackend('cpu');
    const x = tf.tensor1d([1, 2, 3]);
    expect(Array.from(inRefinementPrecision(() => tf.mul(x, 2)).dataSync())).toEqual([2, 4, 6]);
  });

  it('hands the function to a backend that refines, which runs it inside its setting', async () => {
    const seen: string[] = [];
    class RefiningBackend extends tf.KernelBackend {
      withRefinementPrecision<T>(fn: () => T): T {
        seen.push('refine on');
        try {
          return fn();
        } finally {
          seen.push('refine off');
        }
      }
      override dispose(): void {}
    }
    tf.registerBackend('refine-test', () => new RefiningBackend());
    await tf.setBackend('refine-test');
    expect(inRefinementPrecision(() => { seen.push('fn'); return 'done'; })).toBe('done');
    expect(seen).toEqual(['refine on', 'fn', 'refine off']);
  });
});
