import { describe, expect, it } from 'vitest';
import { WindowPacker, packArray, packingEfficiency, type PackItem, type PackedBatch } from '@virnucpro/packer';
import { rng } from './random.js';

/** Items of nearly one size, as 150-bp DNA windows' BPE tokens are (about 34 ± 3 a window): normal, rounded. */
function nearlyEqualItems(count: number, mean: number, sd: number, seed: number): PackItem<number>[] {
  const next = rng(seed);
  return Array.from({ length: count }, (_, index) => {
    const normal = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
    return { index, tokens: Math.max(1, Math.round(mean + sd * normal)), value: index };
  });
}

/** Streams the items through a WindowPacker; `waited`: the most windows packed from an item's arrival to its batch (1:
 * packed with its own window, 2: carried once). */
function packStreaming(items: PackItem<number>[], tokenBudget: number, window: number): { batches: PackedBatch<number>[]; waited: number } {
  const packer = new WindowPacker<number>({ tokenBudget, window });
  const batches: PackedBatch<number>[] = [];
  const arrivedAt = new Map<number, number>();
  let windows = 0;
  let waited = 0;
  const take = (ready: PackedBatch<number>[]) => {
    if (ready.length === 0) return;
    windows++;
    for (const batch of ready) {
      batches.push(batch);
      for (const item of batch.items) waited = Math.max(waited, windows - arrivedAt.get(item.index)!);
    }
  };
  for (const item of items) {
    arrivedAt.set(item.index, windows);
    take(packer.push(item));
  }
  take(packer.flush());
  return { batches, waited };
}

// With carry-over, a window's emptiest batch rejoins the next window. Its items are the window's smallest, and sorted
// among the next window's they were the smallest again, landed in its emptiest batch, and (carried once already) had
// to leave with it: one part-filled batch every other window, 82 % filled for 150-bp windows at a 65,536 budget.
describe('WindowPacker carry-over with items of nearly one size', () => {
  it('fills batches as whole-input packing does, each item still carried at most once', () => {
    const items = nearlyEqualItems(150_000, 34, 3, 7);
    const { batches, waited } = packStreaming(items, 65_536, 4_096);
    const whole = packArray(items, { tokenBudget: 65_536 });
    expect(packingEfficiency(batches)).toBeGreaterThan(0.98);
    expect(batches.length).toBeLessThanOrEqual(whole.length + 1);
    expect(waited).toBeLessThanOrEqual(2);
    expect(batches.flatMap((b) => b.items.map((item) => item.index)).sort((a, b) => a - b)).toEqual(items.map((item) => item.index));
  });

  it('at a window of about three batches of 52-token proteins, as embed esm2 packs them', () => {
    const items = nearlyEqualItems(60_000, 52, 1.5, 11);
    const { batches, waited } = packStreaming(items, 32_768, 2_048);
    expect(packingEfficiency(batches)).toBeGreaterThan(0.98);
    expect(waited).toBeLessThanOrEqual(2);
  });
});
