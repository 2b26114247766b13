import { Subject, from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { WindowPacker, packArray, packAsyncIterable, packBatches, type PackItem, type PackedBatch } from '@virnucpro/packer';
import { randomInt, rng } from './random.js';

function randomItems(next: () => number, budget: number): PackItem<string>[] {
  const n = randomInt(next, 0, 400);
  const maxTokens = [budget / 8, budget / 2, budget * 1.5][randomInt(next, 0, 2)];
  return Array.from({ length: n }, (_, index) => ({ index, tokens: randomInt(next, 0, Math.ceil(maxTokens)), value: `v${index}` }));
}

/**
 * The invariants every packing must satisfy, checked independently of how it was produced. Returns the
 * problems found (plain loops: per-item expect() calls would make the suite slow).
 */
function packingProblems(items: PackItem<string>[], batches: PackedBatch<string>[], budget: number): string[] {
  const problems: string[] = [];
  const seen = new Map<number, number>();
  batches.forEach((batch, b) => {
    if (batch.items.length === 0) problems.push(`batch ${b} is empty`);
    if (batch.tokenBudget !== budget) problems.push(`batch ${b} budget ${batch.tokenBudget}`);
    const sum = batch.items.reduce((s, item) => s + item.tokens, 0);
    if (batch.tokens !== sum) problems.push(`batch ${b} says ${batch.tokens} tokens, holds ${sum}`);
    if (sum > budget && batch.items.length !== 1) problems.push(`batch ${b} over budget with ${batch.items.length} items`);
    for (const item of batch.items) {
      seen.set(item.index, (seen.get(item.index) ?? 0) + 1);
      if (item !== items[item.index]) problems.push(`item ${item.index} is not the input object`);
    }
  });
  if (seen.size !== items.length) problems.push(`${seen.size} distinct items batched, ${items.length} given`);
  for (const [index, count] of seen) if (count !== 1) problems.push(`item ${index} in ${count} batches`);
  return problems;
}

function checkPacking(items: PackItem<string>[], batches: PackedBatch<string>[], budget: number): void {
  expect(packingProblems(items, batches, budget)).toEqual([]);
}

describe('packing properties (seeded random inputs)', () => {
  it('packArray: every item in exactly one batch, no batch over budget unless a lone oversize item', () => {
    for (let seed = 1; seed <= 150; seed++) {
      const next = rng(seed);
      const budget = randomInt(next, 10, 5000);
      const items = randomItems(next, budget);
      checkPacking(items, packArray(items, { tokenBudget: budget }), budget);
    }
  });

  it('packBatches: same invariants, and never holds more than `window` items', async () => {
    for (let seed = 1; seed <= 150; seed++) {
      const next = rng(seed * 7919);
      const budget = randomInt(next, 10, 5000);
      const window = randomInt(next, 1, 120);
      const items = randomItems(next, budget);
      const batches = await lastValueFrom(from(items).pipe(packBatches<string>({ tokenBudget: budget, window }), toArray()));
      checkPacking(items, batches, budget);

      const packer = new WindowPacker<string>({ tokenBudget: budget, window });
      let emitted = 0;
      let maxHeld = 0;
      let accountingErrors = 0;
      for (const item of items) {
        emitted += packer.push(item).reduce((s, b) => s + b.items.length, 0);
        maxHeld = Math.max(maxHeld, packer.held);
        if (packer.held + emitted !== item.index + 1) accountingErrors++; // pushed = held + emitted
      }
      expect(maxHeld).toBeLessThanOrEqual(window);
      expect(accountingErrors).toBe(0);
    }
  });

  it('is deterministic and the async-iterable form gives the same batches as the operator', async () => {
    const next = rng(42);
    const items = randomItems(next, 1000);
    const options = { tokenBudget: 1000, window: 50 };
    const a = await lastValueFrom(from(items).pipe(packBatches<string>(options), toArray()));
    const b = await lastValueFrom(from(items).pipe(packBatches<string>(options), toArray()));
    const c: PackedBatch<string>[] = [];
    for await (const batch of packAsyncIterable(items, options)) c.push(batch);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it('carry: false packs every window on its own, exactly as packArray packs it', async () => {
    const next = rng(7);
    for (let round = 0; round < 20; round++) {
      const items = randomItems(next, 1000);
      const window = randomInt(next, 1, 60);
      const got = await lastValueFrom(from(items).pipe(packBatches<string>({ tokenBudget: 1000, window, carry: false }), toArray()));
      const want: PackedBatch<string>[] = [];
      for (let start = 0; start < items.length; start += window) want.push(...packArray(items.slice(start, start + window), { tokenBudget: 1000 }));
      expect(got).toEqual(want);
    }
  });

  it('flush: an emission sends the partial window at once; packing goes on after it', () => {
    const flush = new Subject<void>();
    const items = new Subject<PackItem<string>>();
    const batches: PackedBatch<string>[] = [];
    items.pipe(packBatches<string>({ tokenBudget: 100, window: 4, carry: false, flush })).subscribe((b) => batches.push(b));
    const item = (index: number): PackItem<string> => ({ index, tokens: 30, value: `v${index}` });
    items.next(item(0));
    items.next(item(1));
    expect(batches).toEqual([]); // a window of 4 is not full
    flush.next();
    expect(batches.map((b) => b.items.map((i) => i.index))).toEqual([[0, 1]]);
    flush.next(); // nothing held: nothing sent
    expect(batches).toHaveLength(1);
    for (const i of [2, 3, 4, 5]) items.next(item(i));
    expect(batches.map((b) => b.items.map((i) => i.index))).toEqual([[0, 1], [2, 3, 4], [5]]);
  });

  it('firstWindowTokens: the first window is packed once it holds that many tokens, later ones at `window` items', () => {
    const packer = new WindowPacker<string>({ tokenBudget: 100, window: 10, carry: false, firstWindowTokens: 200 });
    const item = (index: number): PackItem<string> => ({ index, tokens: 30, value: `v${index}` });
    const sizes: number[][] = [];
    for (let i = 0; i < 27; i++) sizes.push(packer.push(item(i)).map((b) => b.items.length));
    // 7 items (210 tokens ≥ 200) make the first window; then 10 items a window, however many tokens they hold.
    expect(sizes.map((s, i) => (s.length ? `${i}:${s.join('+')}` : '')).filter(Boolean)).toEqual(['6:3+3+1', '16:3+3+3+1', '26:3+3+3+1']);
  });

  it('firstWindowTokens: the same invariants, with carry, on random inputs; the first batches leave at the bound', async () => {
    for (let seed = 1; seed <= 100; seed++) {
      const next = rng(seed * 104729);
      const budget = randomInt(next, 10, 5000);
      const window = randomInt(next, 1, 120);
      const items = randomItems(next, budget);
      const firstWindowTokens = randomInt(next, 1, 4 * budget);
      const batches = await lastValueFrom(from(items).pipe(packBatches<string>({ tokenBudget: budget, window, firstWindowTokens }), toArray()));
      checkPacking(items, batches, budget);
      const packer = new WindowPacker<string>({ tokenBudget: budget, window, firstWindowTokens });
      let maxHeld = 0;
      let firstAt = -1;
      let tokens = 0;
      for (const item of items) {
        tokens += item.tokens;
        if (packer.push(item).length > 0 && firstAt === -1) firstAt = item.index;
        maxHeld = Math.max(maxHeld, packer.held);
      }
      expect(maxHeld).toBeLessThanOrEqual(window);
      // The first batches leave at the item that brought the window to the bound, or at the window's last item.
      const bound = items.findIndex((_, i) => items.slice(0, i + 1).reduce((s, it) => s + it.tokens, 0) >= firstWindowTokens);
      const expected = Math.min(bound === -1 ? Infinity : bound, window - 1);
      if (firstAt !== -1) expect(firstAt).toBe(expected);
      else expect(expected >= items.length || items.length === 0).toBe(true);
    }
  });

  it('rejects a firstWindowTokens that is not a positive number', () => {
    expect(() => new WindowPacker({ tokenBudget: 10, window: 4, firstWindowTokens: 0 })).toThrow(/firstWindowTokens/);
    expect(() => new WindowPacker({ tokenBudget: 10, window: 4, firstWindowTokens: Number.NaN })).toThrow(/firstWindowTokens/);
  });

  it('puts an item longer than the budget alone, and a zero-token item somewhere', () => {
    const items = [
      { index: 0, tokens: 30, value: 'a' },
      { index: 1, tokens: 150, value: 'big' },
      { index: 2, tokens: 0, value: 'empty' },
      { index: 3, tokens: 70, value: 'b' },
    ];
    const batches = packArray(items, { tokenBudget: 100 });
    expect(batches.map((b) => b.items.map((i) => i.value))).toEqual([['a', 'empty', 'b'], ['big']]);
    expect(batches.map((b) => b.tokens)).toEqual([100, 150]);
  });

  it('first-fit decreasing beats next-fit on a case where next-fit wastes a batch', () => {
    // Next-fit decreasing (the original "FFD"): [60], [50, 40], [40] → 3 batches. First fit: [60, 40], [50, 40] → 2.
    const items = [60, 50, 40, 40].map((tokens, index) => ({ index, tokens, value: index }));
    expect(packArray(items, { tokenBudget: 100 }).map((b) => b.items.map((i) => i.tokens))).toEqual([[60, 40], [50, 40]]);
  });

  it('rejects invalid options and items', () => {
    expect(() => packArray([], { tokenBudget: 0 })).toThrow(RangeError);
    expect(() => new WindowPacker({ tokenBudget: 10, window: 0 })).toThrow(RangeError);
    expect(() => packArray([{ index: 0, tokens: Number.NaN, value: 0 }], { tokenBudget: 10 })).toThrow(/item 0/);
  });
});
