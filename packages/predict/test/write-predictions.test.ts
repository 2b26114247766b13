// writePredictions: every result classified and written once, in input order, MLP_BATCH rows a call; a slow
// writer is waited for before more results are taken.
import { describe, expect, it } from 'vitest';
import type { EmbeddingResult } from '@virnucpro/runtime';
import type { FrameItem } from '../src/index.js';
import { MLP_BATCH, writePredictions } from '../src/write-predictions.js';

const DIM = 3;
function results(n: number, taken: { count: number }): AsyncIterable<EmbeddingResult<FrameItem>> {
  return (async function* () {
    for (let i = 0; i < n; i++) {
      taken.count++;
      yield { index: i, restored: false, item: { id: `f${i}`, nucleotide: 'ATG', protein: 'M' }, vector: Float32Array.from([i, 1, 2]) };
    }
  })();
}

describe('writePredictions', () => {
  it('classifies every row once, in order, MLP_BATCH rows a call, and waits for the writer', async () => {
    const calls: number[] = [];
    const written: { ids: string[]; p: number[] }[] = [];
    const taken = { count: 0 };
    let maxAhead = 0;
    const mlp = {
      inputDim: DIM,
      // p(virus) = the row's first value: shows which row a probability came from.
      async predict(features: Float32Array, rows: number) {
        calls.push(rows);
        await new Promise((resolve) => setTimeout(resolve, 2));
        return Float32Array.from({ length: 2 * rows }, (_, k) => (k % 2 ? features[(k >> 1) * DIM] : 0));
      },
    };
    const writer = {
      async writeBatch(ids: readonly string[], p: ArrayLike<number>) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        const rowsWritten = written.reduce((sum, w) => sum + w.ids.length, 0) + ids.length;
        maxAhead = Math.max(maxAhead, taken.count - rowsWritten);
        written.push({ ids: [...ids], p: Array.from(p) });
      },
    };
    const n = 3 * MLP_BATCH + 17;
    const rows = await writePredictions(results(n, taken), { mlp, writer });
    expect(rows).toBe(n);
    expect(calls).toEqual([MLP_BATCH, MLP_BATCH, MLP_BATCH, 17]);
    expect(written.flatMap((w) => w.ids)).toEqual(Array.from({ length: n }, (_, i) => `f${i}`));
    expect(written.flatMap((w) => w.p.filter((_, k) => k % 2))).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(maxAhead).toBeLessThanOrEqual(2 * MLP_BATCH); // one batch classifying/writing, one filling
  });
});
