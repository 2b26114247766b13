// predict's --token-budget when none is given: larger batches where the models run on cuda.
import { describe, expect, it } from 'vitest';
import { defaultTokenBudget } from '../src/index.js';
import { CUDA_TOKEN_BUDGET, DEFAULT_TOKEN_BUDGET, tokenBudgetFor } from '../src/token-budget.js';

describe('defaultTokenBudget', () => {
  const gpus = () => true;
  const none = () => false;

  it('cuda asked for: the cuda size, without asking the driver', () => {
    expect(defaultTokenBudget('cuda', () => { throw new Error('asked'); })).toBe(CUDA_TOKEN_BUDGET);
  });

  it('auto: the cuda size only when the CUDA probe sees a GPU', () => {
    expect(defaultTokenBudget('auto', gpus)).toBe(CUDA_TOKEN_BUDGET);
    expect(defaultTokenBudget('auto', none)).toBe(DEFAULT_TOKEN_BUDGET);
  });

  it('every other backend: the small size, even with a GPU present', () => {
    for (const backend of ['cpu', 'wasm', 'webgpu', 'tensorflow'] as const) {
      expect(defaultTokenBudget(backend, gpus)).toBe(DEFAULT_TOKEN_BUDGET);
      expect(tokenBudgetFor(backend)).toBe(DEFAULT_TOKEN_BUDGET);
    }
    expect([CUDA_TOKEN_BUDGET, DEFAULT_TOKEN_BUDGET]).toEqual([16384, 4096]);
  });
});
