import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { afterAll, describe, expect, it } from 'vitest';
import { inFullPrecision } from '../src/index.js';

/** A backend that records whether work ran inside its full-precision scope. */
class ScopedBackend extends tf.KernelBackend {
  inScope = false;
  calls = 0;
  withFullPrecision<T>(fn: () => T): T {
    this.calls++;
    this.inScope = true;
    try {
      return fn();
    } finally {
      this.inScope = false;
    }
  }
  override dispose(): void {}
}

describe('inFullPrecision', () => {
  afterAll(async () => {
    await tf.setBackend('cpu');
    tf.removeBackend('scoped-test');
  });

  it('just runs the function on a backend that always computes in fp32', async () => {
    await tf.setBackend('cpu');
    expect(inFullPrecision(() => 42)).toBe(42);
  });

  it("runs the function inside the backend's full-precision scope when the backend has one", async () => {
    const backend = new ScopedBackend();
    tf.registerBackend('scoped-test', () => backend);
    await tf.setBackend('scoped-test');
    let seenInScope = false;
    const value = inFullPrecision(() => {
      seenInScope = backend.inScope;
      return 'done';
    });
    expect(value).toBe('done');
    expect(seenInScope).toBe(true);
    expect(backend.calls).toBe(1);
    expect(backend.inScope).toBe(false);
  });
});
