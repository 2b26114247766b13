// predict's --token-budget when none is given: larger batches where the models run on cuda.
import { describe, expect, it } from 'vitest';
import { CUDA_TOKEN_BUDGET, DEFAULT_TOKEN_BUDGET, defaultTokenBudget } from '../src/config/default-token-budget.js';

describe('defaultTokenBudget', () => {
  const gpus = async () => [{ ordinal: 0, name: 'GPU' }];
  const none = async (): Promise<unknown[]> => {
    throw new Error('no CUDA driver');
  };

  it('cuda asked for: the cuda size, without asking the driver', async () => {
    expect(await defaultTokenBudget('cuda', none)).toBe(CUDA_TOKEN_BUDGET);
  });

  it('auto: the cuda size only when the CUDA driver sees a GPU', async () => {
    expect(await defaultTokenBudget('auto', gpus)).toBe(CUDA_TOKEN_BUDGET);
    expect(await defaultTokenBudget('auto', none)).toBe(DEFAULT_TOKEN_BUDGET);
    expect(await defaultTokenBudget('auto', async () => [])).toBe(DEFAULT_TOKEN_BUDGET);
  });

  it('every other backend: the small size, even with a GPU present', async () => {
    for (const backend of ['cpu', 'wasm', 'webgpu', 'tensorflow'] as const) expect(await defaultTokenBudget(backend, gpus)).toBe(DEFAULT_TOKEN_BUDGET);
    expect([CUDA_TOKEN_BUDGET, DEFAULT_TOKEN_BUDGET]).toEqual([16384, 4096]);
  });
});
