import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { afterAll, describe, expect, it } from 'vitest';
import { inModelBlock } from '../src/index.js';

describe('inModelBlock', () => {
  afterAll(async () => {
    await tf.setBackend('cpu');
    tf.removeBackend('blocks-test');
  });

  it('just runs the function on a backend that computes every block alike', async () => {
    await tf.setBackend('cpu');
    expect(inModelBlock(0, 3, () => 'ran')).toBe('ran');
  });

  it('tells a block-aware backend which block of how many runs, around the function', async () => {
    const seen: string[] = [];
    class BlockAwareBackend extends tf.KernelBackend {
      withModelBlock<T>(block: number, blocks: number, fn: () => T): T {
        seen.push(`enter ${block}/${blocks}`);
        try {
          return fn();
        } finally {
          seen.push(`leave ${block}/${blocks}`);
        }
      }
      override dispose(): void {}
    }
    tf.registerBackend('blocks-test', () => new BlockAwareBackend());
    await tf.setBackend('blocks-test');
    expect(inModelBlock(2, 36, () => { seen.push('fn'); return 7; })).toBe(7);
    expect(seen).toEqual(['enter 2/36', 'fn', 'leave 2/36']);
  });

  it('refuses a block outside the stack', () => {
    expect(() => inModelBlock(3, 3, () => 0)).toThrow(/block 3 of 3/);
    expect(() => inModelBlock(-1, 3, () => 0)).toThrow(/0 ≤ block < blocks/);
    expect(() => inModelBlock(0.5, 3, () => 0)).toThrow(/integers/);
  });
});
