// A pool's workers start the planned backend before the model loads (onStartedCompute), so a model package's
// plugin never starts one. The compute package is loaded there by name, from its build (dist/).
import { fileURLToPath } from 'node:url';
import { startPool } from '@virnucpro/runtime';
import { describe, expect, it } from 'vitest';
import { onStartedCompute, planCompute } from '../src/index.js';

const model = { module: fileURLToPath(new URL('./fixtures/backend-model.mjs', import.meta.url)), export: 'createModel', options: { value: 7 } };

describe('onStartedCompute', () => {
  it('starts the plan in the worker, then loads the model onto it with the precision it started in', async () => {
    const plan = await planCompute({ backend: 'wasm' });
    const pool = await startPool<string>({ model: onStartedCompute(model), compute: plan.settings, thread: true });
    try {
      expect(pool.telemetry()[0].info).toEqual({ backend: 'wasm', compute: { backend: 'wasm', precision: 'fp32' } });
      expect((await pool.submit({ items: [{ index: 0, tokens: 1, value: 'x' }] })).vectors).toEqual([new Float32Array([7])]);
    } finally {
      await pool.close();
    }
  });

  it('refuses to run without the pool\'s compute settings', async () => {
    await expect(startPool({ model: onStartedCompute(model), thread: true })).rejects.toThrow(/needs the pool's `compute`/);
  });
});
