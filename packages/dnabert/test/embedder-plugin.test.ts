// embedderFactory is what a @virnucpro/runtime worker calls: (options, ctx) → { dim, tokenCount, embed }.
import { join } from 'node:path';
import { readSafetensors } from '@virnucpro/weights';
import { describe, expect, it } from 'vitest';
import { startCompute } from '@virnucpro/compute';
import { embedderFactory } from '../src/index.js';
import { maxAbsDiff, tinyDir, tinyInputs } from './parity-helpers.js';

describe('embedderFactory as a runtime worker plugin', () => {
  it('loads onto the backend the worker started, in the precision it was started in, and embeds the reference means', async () => {
    await startCompute({ backend: 'cpu' }); // in a worker: @virnucpro/compute's onStartedCompute does this
    const model = await embedderFactory({ model: tinyDir }, { compute: { precision: 'fp32' } });
    try {
      expect(model.backend).toBe('cpu');
      expect(model.precision).toBe('fp32');
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
