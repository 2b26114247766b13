import { readFileSync } from 'node:fs';
import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { packBatches, packingEfficiency, type PackItem } from '@virnucpro/packer';

const lengths = JSON.parse(readFileSync(new URL('../../../test-data/packer/lambda-orf-lengths.json', import.meta.url), 'utf8')) as {
  chunk500: number[];
  chunk300: number[];
};

/**
 * One 48-kb phage yields only ~45–130 proteins (two to five 4096-token batches), where the last, partial
 * batch decides everything. A run embeds millions; to measure that steady state the real lambda lengths
 * are streamed `copies` times (as for a sample of that many lambda-like genomes).
 */
function stream(proteinLengths: number[], copies: number): PackItem<null>[] {
  const items: PackItem<null>[] = [];
  for (let c = 0; c < copies; c++) for (const length of proteinLengths) items.push({ index: items.length, tokens: length + 2, value: null });
  return items;
}

describe('packing efficiency on real lambda phage proteins (ESM-2 tokens = length + 2)', () => {
  for (const [name, copies] of [['chunk500', 50], ['chunk300', 20]] as const) {
    it(`${name}: ≥ 97 % at a 4096-token budget, window 2000`, async () => {
      const items = stream(lengths[name], copies);
      expect(items.length).toBeGreaterThan(2000);
      const batches = await lastValueFrom(from(items).pipe(packBatches<null>({ tokenBudget: 4096, window: 2000 }), toArray()));
      const realTokens = items.reduce((s, item) => s + item.tokens, 0);
      const efficiency = realTokens / (batches.length * 4096);
      expect(batches.reduce((s, b) => s + b.items.length, 0)).toBe(items.length);
      expect(packingEfficiency(batches)).toBeCloseTo(efficiency, 12);
      expect(efficiency).toBeGreaterThanOrEqual(0.97);
    });
  }
});
