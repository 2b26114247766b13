// embedderFactory is what a @virnucpro/runtime worker calls: (options, ctx) → { dim, tokenCount, embed }.
import { join } from 'node:path';
import { readSafetensors } from '@virnucpro/weights';
import { describe, expect, it } from 'vitest';
import { embedderFactory } from '../src/index.js';
import { maxAbsDiff, tinyDir, tinyInputs } from './parity-helpers.js';

describe('embedderFactory as a runtime worker plugin', () => {
  it('runs on the worker context backend and exposes embed() with the reference means', async () => {
    const model = await embedderFactory({ model: tinyDir }, { backend: 'cpu' });
    try {
      expect(model.backend).toBe('cpu');
      expect(model.dim).toBe(64);
      expect(model.tokenCount(tinyInputs.sequences[0])).toBe(tinyInputs.token_ids[0].length);
      const expected = (await readSafetensors(join(tinyDir, 'expected.safetensors'))).tensors;
      const vectors = await model.embed(tinyInputs.sequences.slice(0, 3));
      vectors.forEach((v, i) => expect(maxAbsDiff(v, expected.get(`mean.${i}`)!.data as Float32Array)).toBeLessThanOrEqual(1e-5));
    } finally {
      model.dispose?.();
    }
  });
});
