// writePredictions: every scored frame written once, in input order, ROWS_PER_WRITE rows a call; a slow writer is
// waited for before more results are taken; a result that is not a pair of scores is refused.
import { describe, expect, it } from 'vitest';
import type { EmbeddingResult } from '@virnucpro/runtime';
import type { FrameItem } from '../src/index.js';
import { ROWS_PER_WRITE, writePredictions } from '../src/write-predictions.js';

function results(n: number, taken: { count: number }, dim = 2): AsyncIterable<EmbeddingResult<FrameItem>> {
  return (async function* () {
    for (let i = 0; i < n; i++) {
      taken.count++;
      // p(virus) = the frame's number: shows which frame a written row came from.
      yield { index: i, restored: false, item: { id: `f${i}`, nucleotide: 'ATG', protein: 'M' }, vector: Float32Array.from({ length: dim }, (_, k) => (k === 1 ? i : 0)) };
    }
  })();
}

describe('writePredictions', () => {
  it('writes every row once, in order, ROWS_PER_WRITE rows a call, and waits for the writer', async () => {
    const written: { ids: string[]; p: number[] }[] = [];
    const taken = { count: 0 };
    let maxAhead = 0;
    const writer = {
      async writeBatch(ids: readonly string[], p: ArrayLike<number>) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        const rowsWritten = written.reduce((sum, w) => sum + w.ids.length, 0) + ids.length;
        maxAhead = Math.max(maxAhead, taken.count - rowsWritten);
        written.push({ ids: [...ids], p: Array.from(p) });
      },
    };
    const n = 3 * ROWS_PER_WRITE + 17;
    const rows = await writePredictions(results(n, taken), { writer });
    expect(rows).toBe(n);
    expect(written.map((w) => w.ids.length)).toEqual([ROWS_PER_WRITE, ROWS_PER_WRITE, ROWS_PER_WRITE, 17]);
    expect(written.flatMap((w) => w.ids)).toEqual(Array.from({ length: n }, (_, i) => `f${i}`));
    expect(written.flatMap((w) => w.p.filter((_, k) => k % 2))).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(maxAhead).toBeLessThanOrEqual(2 * ROWS_PER_WRITE); // one batch writing, one filling
  });

  it('refuses results that are not two scores (a pool started without the MLP)', async () => {
    const writer = { writeBatch: async () => undefined };
    await expect(writePredictions(results(3, { count: 0 }, 3328), { writer })).rejects.toThrow(/frame f0: expected its 2 scores, got 3328 values/);
  });
});
