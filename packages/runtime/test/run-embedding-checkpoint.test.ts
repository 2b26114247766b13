// runEmbedding with a checkpoint (an in-memory stand-in for @virnucpro/checkpoint's session): restored items skip
// the embedder and are read back in input order, every new result is appended before it is delivered, and a
// stored id that does not match the input stops the run.
import { describe, expect, it } from 'vitest';
import { runEmbedding, serialEmbedder, type EmbeddingCheckpoint } from '../src/index.js';
import { collect, makeSequences } from './helpers.js';

const vectorOf = (s: string) => Float32Array.from([s.length, s.charCodeAt(0), s.charCodeAt(s.length - 1)]);
const pack = { tokenBudget: 100, window: 8 };

/** A checkpoint holding `stored` (index → id and vector) from an earlier run; records what it is given. */
function memoryCheckpoint(stored: Map<number, { id: string; vector: Float32Array }>) {
  const appended: number[] = [];
  const read: number[] = [];
  let flushes = 0;
  const checkpoint: EmbeddingCheckpoint = {
    restored: {
      count: stored.size,
      has: (index) => stored.has(index),
      get: async (index) => {
        read.push(index);
        const { id, vector } = stored.get(index)!;
        return { vector, matches: (asked: string) => asked === id };
      },
    },
    append: (record) => void appended.push(record.index),
    flush: async () => void flushes++,
  };
  return { checkpoint, appended, read, flushes: () => flushes };
}

/** The input, telling whether its reader was closed (the run stopped reading it). */
function closableItems(items: string[]) {
  const state = { read: 0, closed: false };
  async function* generate(): AsyncGenerator<{ id: string; sequence: string }> {
    try {
      for (const [i, sequence] of items.entries()) {
        state.read++;
        yield { id: `seq${i}`, sequence };
      }
    } finally {
      state.closed = true;
    }
  }
  return { items: generate(), state };
}

const embedder = () => {
  const embedded: number[] = [];
  const pool = serialEmbedder<{ id: string; sequence: string }>(async (batch) => {
    embedded.push(...batch.items.map((item) => item.index));
    return batch.items.map((item) => vectorOf(item.value.sequence));
  });
  return { pool, embedded };
};

describe('runEmbedding with a checkpoint', () => {
  it('restores stored items instead of embedding them, reads them back in input order, appends the rest', async () => {
    const sequences = makeSequences(60);
    const restoredIndices = [0, 1, 2, 17, 30, 31, 59];
    // Stored vectors that the embedder would not produce, so a restored result cannot come from it.
    const stored = new Map(restoredIndices.map((i) => [i, { id: `seq${i}`, vector: Float32Array.from([-i, -i, -i]) }]));
    const memory = memoryCheckpoint(stored);
    const { pool, embedded } = embedder();
    const input = closableItems(sequences);
    const run = runEmbedding({ items: input.items, pack: { ...pack, tokenCount: (item) => item.sequence.length }, pool, checkpoint: memory.checkpoint });
    const results = await collect(run);

    expect(results.map((r) => r.index)).toEqual(sequences.map((_, i) => i));
    const others = sequences.map((_, i) => i).filter((i) => !stored.has(i));
    for (const r of results) {
      expect(r.restored).toBe(stored.has(r.index));
      expect(Array.from(r.vector)).toEqual(Array.from(stored.get(r.index)?.vector ?? vectorOf(sequences[r.index])));
    }
    expect(memory.read).toEqual(restoredIndices);
    expect([...embedded].sort((a, b) => a - b)).toEqual(others);
    expect([...memory.appended].sort((a, b) => a - b)).toEqual(others);
    expect(memory.flushes()).toBe(1);
    expect(run.stats).toMatchObject({ read: 60, resumedSequences: restoredIndices.length, embedded: others.length, delivered: 60 });
  });

  it('fails the run when a stored id is not the input item at that index, and stops reading the input', async () => {
    const sequences = makeSequences(200);
    const stored = new Map([[3, { id: 'someone-else', vector: Float32Array.from([0, 0, 0]) }]]);
    const input = closableItems(sequences);
    const run = runEmbedding({
      items: input.items,
      pack: { ...pack, tokenCount: (item) => item.sequence.length },
      pool: embedder().pool,
      checkpoint: memoryCheckpoint(stored).checkpoint,
    });
    await expect(collect(run)).rejects.toThrow("checkpoint does not match the input: item #3 is 'seq3' but the checkpoint stored another item there");
    await new Promise((resolve) => setImmediate(resolve));
    expect(input.state.closed).toBe(true);
    expect(input.state.read).toBeLessThan(sequences.length);
  });
});
