import { WindowPacker, packingEfficiency, type PackedBatch } from '@virnucpro/packer';
import { describe, expect, it } from 'vitest';
import { packWindowFor } from '../src/pack-window.js';

/** Mean and lowest fill of the batches a stream emits before its end (the last flush is part-filled by nature). */
function streamFill(tokenBudget: number, window: number): { mean: number; lowest: number } {
  let x = 7;
  const next = () => { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x / 2 ** 32; };
  const packer = new WindowPacker<null>({ tokenBudget, window, carry: true });
  const batches: PackedBatch<null>[] = [];
  for (let index = 0; index < 30000; index++) batches.push(...packer.push({ index, tokens: 50 + Math.floor(next() * 5), value: null }));
  return { mean: packingEfficiency(batches), lowest: Math.min(...batches.map((b) => b.tokens / tokenBudget)) };
}

describe('packWindowFor', () => {
  it('keeps the minimum at small budgets and grows with the budget', () => {
    expect(packWindowFor(4096, 1024)).toBe(1024);
    expect(packWindowFor(16384, 2000)).toBe(2000);
    expect(packWindowFor(32768, 1024)).toBe(2048);
    expect(packWindowFor(65536, 1024)).toBe(4096);
  });

  it('fills ≥ 97 % of each streamed batch of 52-token proteins at 16K, 32K and 64K budgets (the fixed 1,024, less than a batch at 64K, did not)', () => {
    expect(streamFill(65536, 1024).mean).toBeLessThan(0.9);
    for (const budget of [16384, 32768, 65536]) expect(streamFill(budget, packWindowFor(budget, 1024)).lowest).toBeGreaterThanOrEqual(0.97);
  });
});
