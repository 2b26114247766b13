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

  it('with a feature sink: the features of each batch follow its rows, in order, split from the scores', async () => {
    const rows: number[] = [];
    const got: { ids: string[]; features: number[]; dim: number }[] = [];
    const writer = { writeBatch: async (ids: readonly string[], p: ArrayLike<number>) => void rows.push(...Array.from(p)) };
    const features = { writeFeatures: async (ids: readonly string[], f: Float32Array, dim: number) => void got.push({ ids: [...ids], features: Array.from(f), dim }) };
    // Each result: scores (0, i), then three features (i, i + 0.25, i + 0.5).
    const source = (async function* () {
      for (let i = 0; i < ROWS_PER_WRITE + 3; i++) yield { index: i, restored: false, item: { id: `f${i}`, nucleotide: 'ATG', protein: 'M' }, vector: Float32Array.from([0, i, i, i + 0.25, i + 0.5]) };
    })();
    expect(await writePredictions(source, { writer, features })).toBe(ROWS_PER_WRITE + 3);
    expect(got.map((g) => [g.ids.length, g.dim])).toEqual([[ROWS_PER_WRITE, 3], [3, 3]]);
    expect(got.flatMap((g) => g.ids)).toEqual(Array.from({ length: ROWS_PER_WRITE + 3 }, (_, i) => `f${i}`));
    expect(got.flatMap((g) => g.features)).toEqual(Array.from({ length: ROWS_PER_WRITE + 3 }, (_, i) => [i, i + 0.25, i + 0.5]).flat());
    expect(rows).toEqual(Array.from({ length: ROWS_PER_WRITE + 3 }, (_, i) => [0, i]).flat());
  });

  it('with a feature sink and a refinement: the frames scored again near 0.5 hand on their refined features', async () => {
    const scores: number[] = [];
    const features: number[] = [];
    const writer = { writeBatch: async (_: readonly string[], p: ArrayLike<number>) => void scores.push(...Array.from(p)) };
    const sink = { writeFeatures: async (_: readonly string[], f: Float32Array) => void features.push(...Array.from(f)) };
    // Frame i's first virus score: 0.5 for even i (refined), 0.9 for odd; its feature: i. Refined: 0.75 and 1000 + i.
    const source = (async function* () {
      for (let i = 0; i < 10; i++) yield { index: i, restored: false, item: { id: `f${i}`, nucleotide: 'ATG', protein: 'M' }, vector: Float32Array.from(i % 2 ? [0.1, 0.9, i] : [0.5, 0.5, i]) };
    })();
    const refine = { margin: 0.04, score: async (fs: FrameItem[]) => fs.map((f) => Float32Array.from([0.25, 0.75, 1000 + Number(f.id.slice(1))])) };
    await writePredictions(source, { writer, features: sink, refine });
    expect(features).toEqual(Array.from({ length: 10 }, (_, i) => (i % 2 ? i : 1000 + i)));
    expect(scores.filter((_, k) => k % 2)).toEqual(Array.from({ length: 10 }, (_, i) => (i % 2 ? Math.fround(0.9) : 0.75)));
  });

  it('with a feature sink, refuses results that are only two scores (a pool started without keepFeatures)', async () => {
    const writer = { writeBatch: async () => undefined };
    const features = { writeFeatures: async () => undefined };
    await expect(writePredictions(results(3, { count: 0 }), { writer, features })).rejects.toThrow(/frame f0: expected its 2 scores and its features, got 2 values/);
  });

  it('refuses results that are not two scores (a pool started without the MLP)', async () => {
    const writer = { writeBatch: async () => undefined };
    await expect(writePredictions(results(3, { count: 0 }, 3328), { writer })).rejects.toThrow(/frame f0: expected its 2 scores, got 3328 values/);
  });
});
