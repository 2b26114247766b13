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
      // Tokenized once by the caller (the CLI's embed packs on the ids' count): the same ids, the same vectors.
      const ids = tinyInputs.sequences.slice(0, 3).map((s) => model.tokenized.encode(s));
      expect(ids.map((t) => [...t])).toEqual(tinyInputs.token_ids.slice(0, 3));
      expect(await model.tokenized.embed(ids)).toEqual(vectors);
      expect(model.counters?.()).toEqual({ tokens: 2 * ids.reduce((n, t) => n + t.length, 0) });
    } finally {
      model.dispose?.();
    }
  });
});
