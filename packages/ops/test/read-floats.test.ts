import * as tf from '@tensorflow/tfjs-core';
import { MathBackendCPU } from '@tensorflow/tfjs-backend-cpu';
import { afterAll, describe, expect, it } from 'vitest';
import { readFloats } from '../src/index.js';

/** The cpu backend with a `readInto` that reads into the given array (as cuda's does from its staging memory). */
class ReadIntoBackend extends MathBackendCPU {
  given: Float32Array[] = [];
  async readInto(dataId: tf.DataId, allocate: (floats: number) => Float32Array): Promise<Float32Array> {
    const values = this.readSync(dataId) as Float32Array;
    const array = allocate(values.length);
    this.given.push(array);
    array.set(values);
    return array.subarray(0, values.length);
  }
}

describe('readFloats', () => {
  afterAll(async () => {
    await tf.setBackend('cpu');
    tf.removeBackend('read-into-test');
  });

  it('reads into the array from allocate where the backend can, from its start', async () => {
    const backend = new ReadIntoBackend();
    tf.registerBackend('read-into-test', () => backend);
    await tf.setBackend('read-into-test');
    const t = tf.tensor1d([1.5, -2, 3.25]);
    const mine = new Float32Array(8).fill(9);
    const values = await readFloats(t, () => mine);
    expect(values.buffer).toBe(mine.buffer);
    expect([...values]).toEqual([1.5, -2, 3.25]);
    expect(mine[3]).toBe(9);
    // Without an allocator, or for an int32 tensor, the backend's own read.
    expect([...(await readFloats(t))]).toEqual([1.5, -2, 3.25]);
    expect([...(await readFloats(tf.tensor1d([4, 5], 'int32'), () => mine))]).toEqual([4, 5]);
    expect(backend.given).toHaveLength(1);
    t.dispose();
  });

  it('returns the backend read’s own array where the backend has no readInto', async () => {
    await tf.setBackend('cpu');
    let asked = 0;
    const values = await readFloats(tf.tensor1d([7, 8]), (n) => (asked++, new Float32Array(n)));
    expect([...values]).toEqual([7, 8]);
    expect(asked).toBe(0);
  });
});
