import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { afterAll, describe, expect, it } from 'vitest';
import { calibrateQuantisation } from '../src/index.js';

/** A backend that may ask for a calibration pass and records whether work ran inside it. */
class CalibratingBackend extends tf.KernelBackend {
  inPass = false;
  passes = 0;
  overlapped = false;
  constructor(readonly needsQuantisationCalibration: boolean) {
    super();
  }
  async withQuantisationCalibration<T>(fn: () => Promise<T>): Promise<T> {
    this.passes++;
    if (this.inPass) this.overlapped = true;
    this.inPass = true;
    try {
      return await fn();
    } finally {
      this.inPass = false;
    }
  }
  override dispose(): void {}
}

describe('calibrateQuantisation', () => {
  afterAll(async () => {
    await tf.setBackend('cpu');
    for (const name of ['calibrating-test', 'not-calibrating-test', 'serial-test']) tf.removeBackend(name);
  });

  it('does not run the pass on a backend without quantised arithmetic', async () => {
    await tf.setBackend('cpu');
    let ran = false;
    expect(await calibrateQuantisation(async () => { ran = true; })).toBe(false);
    expect(ran).toBe(false);
  });

  it('does not run the pass where the backend does not ask for one (cuda outside fp8)', async () => {
    const backend = new CalibratingBackend(false);
    tf.registerBackend('not-calibrating-test', () => backend);
    await tf.setBackend('not-calibrating-test');
    let ran = false;
    expect(await calibrateQuantisation(async () => { ran = true; })).toBe(false);
    expect(ran).toBe(false);
    expect(backend.passes).toBe(0);
  });

  it("runs the pass inside the backend's calibration, awaiting it, where the backend asks", async () => {
    const backend = new CalibratingBackend(true);
    tf.registerBackend('calibrating-test', () => backend);
    await tf.setBackend('calibrating-test');
    let seenInPass = false;
    const calibrated = await calibrateQuantisation(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      seenInPass = backend.inPass; // still inside after an await
    });
    expect(calibrated).toBe(true);
    expect(seenInPass).toBe(true);
    expect(backend.passes).toBe(1);
    expect(backend.inPass).toBe(false);
  });

  it('runs passes started together one after another, a failed one not blocking the next', async () => {
    const backend = new CalibratingBackend(true);
    tf.registerBackend('serial-test', () => backend);
    await tf.setBackend('serial-test');
    const order: string[] = [];
    const pass = (name: string, fail = false) => async () => {
      order.push(`${name} start`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push(`${name} end`);
      if (fail) throw new Error(`${name} failed`);
    };
    const results = await Promise.allSettled([calibrateQuantisation(pass('a', true)), calibrateQuantisation(pass('b'))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(order).toEqual(['a start', 'a end', 'b start', 'b end']);
    expect(backend.overlapped).toBe(false);
  });
});
