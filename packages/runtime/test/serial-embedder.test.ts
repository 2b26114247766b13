// runEmbedding on a model in this process (serialEmbedder), with the WindowPacker's carry-over: the batches are
// exactly packAsyncIterable's, embedded one at a time in that order, and the results come back in input order.
import { packAsyncIterable, type PackItem, type PackedBatch } from '@virnucpro/packer';
import { describe, expect, it } from 'vitest';
import { pull$, runEmbedding, serialEmbedder } from '../src/index.js';
import { asyncItems, collect, makeSequences } from './helpers.js';

const vectorOf = (s: string) => Float32Array.from([s.length, s.charCodeAt(0), s.charCodeAt(s.length - 1)]);
const budget = { tokenBudget: 100, window: 8 };

function recording(concurrent = 1) {
  const batches: number[][] = [];
  const started: number[][] = [];
  let running = 0;
  let maxRunning = 0;
  const embedder = serialEmbedder<string>(async (batch: PackedBatch<string> | { items: PackItem<string>[] }) => {
    maxRunning = Math.max(maxRunning, ++running);
    started.push(batch.items.map((item) => item.index));
    // Batches take different times, as a GPU's do: a later batch may finish first; its results must still wait.
    await new Promise((resolve) => setTimeout(resolve, batch.items[0].index % 3));
    batches.push(batch.items.map((item) => item.index));
    running--;
    return batch.items.map((item) => vectorOf(item.value));
  }, { concurrent });
  return { embedder, batches, started, maxRunning: () => maxRunning };
}

describe('runEmbedding with serialEmbedder', () => {
  it('carry: the same batches as packAsyncIterable, one at a time, results in input order', async () => {
    const sequences = makeSequences(150);
    const expected: number[][] = [];
    for await (const batch of packAsyncIterable(sequences.map((value, index) => ({ index, tokens: value.length, value })), budget)) {
      expected.push(batch.items.map((item) => item.index));
    }
    const { embedder, batches, maxRunning } = recording();
    const results = await collect(runEmbedding({ items: asyncItems(sequences), pack: { ...budget, carry: true }, pool: embedder, maxReadAhead: Infinity }));
    expect(batches).toEqual(expected);
    expect(maxRunning()).toBe(1);
    expect(results.map((r) => r.index)).toEqual(sequences.map((_, i) => i));
    results.forEach((r, i) => expect(Array.from(r.vector)).toEqual(Array.from(vectorOf(sequences[i]))));
  });

  it('2 at a time (a GPU): the same batches, started in order, the next one before the one before it finishes, results in input order', async () => {
    const sequences = makeSequences(150);
    const one = recording(1);
    const two = recording(2);
    await collect(runEmbedding({ items: asyncItems(sequences), pack: { ...budget, carry: true }, pool: one.embedder, maxReadAhead: Infinity }));
    const results = await collect(runEmbedding({ items: asyncItems(sequences), pack: { ...budget, carry: true }, pool: two.embedder, maxReadAhead: Infinity }));
    expect(two.started).toEqual(one.batches);
    expect(two.maxRunning()).toBe(2);
    expect(results.map((r) => r.index)).toEqual(sequences.map((_, i) => i));
    results.forEach((r, i) => expect(Array.from(r.vector)).toEqual(Array.from(vectorOf(sequences[i]))));
  });

  it('2 at a time: a failed batch fails the run, and the batches queued behind the two running are not embedded', async () => {
    const sequences = makeSequences(120);
    let calls = 0;
    const embedder = serialEmbedder<string>(async (batch) => {
      const call = ++calls;
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (call === 2) throw new Error('model failed');
      return batch.items.map((item) => vectorOf(item.value));
    }, { concurrent: 2 });
    await expect(collect(runEmbedding({ items: asyncItems(sequences), pack: { tokenBudget: 100, window: 60 }, pool: embedder }))).rejects.toThrow('model failed');
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(calls).toBe(3); // the failing batch, the one running beside it, and the one started when the first finished
  });

  it('waitingItems: the next window is read while a window\'s batches wait, and the batches and results do not change', async () => {
    // 10-token items, 2 a batch, windows of 8: each window is 4 batches. The model holds every batch until released.
    const sequences = Array.from({ length: 40 }, (_, i) => `${String(i).padStart(2, '0')}:ACDEFGH`);
    const pack = { tokenBudget: 20, window: 8, carry: false };
    const readWith = async (waitingItems: number | undefined) => {
      const counter = { read: 0 };
      const release: (() => void)[] = [];
      const started: number[][] = [];
      const embedder = serialEmbedder<string>(async (batch) => {
        started.push(batch.items.map((item) => item.index));
        await new Promise<void>((resolve) => release.push(resolve));
        return batch.items.map((item) => vectorOf(item.value));
      }, { concurrent: 2, ...(waitingItems === undefined ? {} : { waitingItems }) });
      const results = collect(runEmbedding({ items: asyncItems(sequences, counter), pack, pool: embedder, maxReadAhead: Infinity }));
      await new Promise((resolve) => setTimeout(resolve, 30));
      const readWhileHeld = counter.read;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (release.length === 0) break;
        release.splice(0).forEach((go) => go());
      }
      return { readWhileHeld, started, results: await results };
    };
    const plain = await readWith(undefined);
    const ahead = await readWith(8);
    // Without it the reader stops once two batches are queued: the first window (and the item that closed it).
    expect(plain.readWhileHeld).toBeLessThanOrEqual(9);
    // With a window's worth: two windows read while the first two batches compute (6 of their 8 items in batches
    // waiting after the first window, then 14 after the second: the gate closes).
    expect(ahead.readWhileHeld).toBeGreaterThanOrEqual(16);
    expect(ahead.readWhileHeld).toBeLessThanOrEqual(17);
    expect(ahead.started).toEqual(plain.started);
    expect(ahead.results.map((r) => r.item)).toEqual(sequences);
    ahead.results.forEach((r, i) => expect(Array.from(r.vector)).toEqual(Array.from(vectorOf(sequences[i]))));
  });

  it('without carry, each window is packed on its own (the carry changes the batches)', async () => {
    const sequences = makeSequences(150);
    const plain = recording();
    const carried = recording();
    await collect(runEmbedding({ items: asyncItems(sequences), pack: { ...budget, carry: false }, pool: plain.embedder, maxReadAhead: Infinity }));
    await collect(runEmbedding({ items: asyncItems(sequences), pack: budget, pool: carried.embedder, maxReadAhead: Infinity }));
    expect(plain.batches.flat().sort((a, b) => a - b)).toEqual(sequences.map((_, i) => i));
    expect(plain.batches).not.toEqual(carried.batches);
  });

  it('a failed batch fails the run, and the batches queued behind it are not embedded', async () => {
    const sequences = makeSequences(60);
    let calls = 0;
    const embedder = serialEmbedder<string>(async (batch) => {
      if (++calls === 2) throw new Error('model failed');
      return batch.items.map((item) => vectorOf(item.value));
    });
    await expect(collect(runEmbedding({ items: asyncItems(sequences), pack: { tokenBudget: 100, window: 60 }, pool: embedder }))).rejects.toThrow('model failed');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toBe(2);
  });

  it('a consumer that stops early stops the reading of the input', async () => {
    const counter = { read: 0 };
    const { embedder, batches } = recording();
    const run = runEmbedding({ items: asyncItems(makeSequences(500), counter), pack: { tokenBudget: 100, window: 4, carry: true }, pool: embedder, maxReadAhead: Infinity });
    let seen = 0;
    for await (const _ of run) if (++seen === 3) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(counter.read).toBeLessThan(20);
    expect(batches.flat().length).toBeLessThan(20);
  });

  it('a paced source (demand → Observable) gives the same batches and results as the async iterable, and reads no further ahead', async () => {
    const sequences = makeSequences(150);
    const fromIterable = recording();
    const fromSource = recording();
    const readIterable = { read: 0 };
    const readSource = { read: 0 };
    let aheadIterable = 0;
    let aheadSource = 0;
    const pack = { tokenBudget: 100, window: 8 };
    for await (const r of runEmbedding({ items: asyncItems(sequences, readIterable), pack, pool: fromIterable.embedder })) aheadIterable = Math.max(aheadIterable, readIterable.read - r.index);
    const results = [];
    for await (const r of runEmbedding({ items: (demand) => pull$(asyncItems(sequences, readSource), demand), pack, pool: fromSource.embedder })) {
      aheadSource = Math.max(aheadSource, readSource.read - r.index);
      results.push(r);
    }
    expect(fromSource.batches).toEqual(fromIterable.batches);
    expect(results.map((r) => r.item)).toEqual(sequences);
    expect(aheadSource).toBeLessThanOrEqual(aheadIterable);
    expect(aheadSource).toBeLessThanOrEqual(2 * pack.window + 1);
  });
});
