// fp8's second look at frames scored near 0.5: which rows qualify, that only they are scored again (embedded at the
// refinement precision, in batches of their own within the budget, and classified in the worker), in order, and
// that the features model runs such a batch — halves after running out of memory included — inside that precision.
import { describe, expect, it } from 'vitest';
import { serialEmbedder, type EmbeddingResult } from '@virnucpro/runtime';
import type { PackItem } from '@virnucpro/packer';
import { featuresModel, type SequenceEmbedder } from '../src/features-model.js';
import type { FrameItem } from '../src/frame-item.js';
import { embedForRefinement } from '../src/embed-for-refinement.js';
import { DEFAULT_REFINE_MARGIN, checkRefineMargin, refineNearDecision, refinementFor, rowsNearDecision } from '../src/frame-refinement.js';
import { ROWS_PER_WRITE, REFINING_BATCHES, writePredictions } from '../src/write-predictions.js';
import { RefinementBatcher } from '../src/refinement-batcher.js';

const frame = (i: number, residues = 3): FrameItem => ({ id: `r_chunk_${i}F1`, nucleotide: 'ACG'.repeat(residues), protein: 'M'.repeat(residues) });
/** Two probabilities per row: (1 − v, v). */
const probabilitiesOf = (virus: number[]) => Float32Array.from(virus.flatMap((v) => [1 - v, v]));

describe('rowsNearDecision', () => {
  it('takes the rows whose virus probability lies strictly within the margin of 0.5', () => {
    const p = probabilitiesOf([0.5, 0.53, 0.47, 0.545, 0.455, 0.9, 0.1, 0.539]);
    expect(rowsNearDecision(p, 8, 0.04)).toEqual([0, 1, 2, 7]);
    expect(rowsNearDecision(p, 8, 0)).toEqual([]);
    expect(rowsNearDecision(p, 8, 0.5)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(rowsNearDecision(p, 3, 0.04)).toEqual([0, 1, 2]); // only the rows asked for
  });

  it('refuses a margin outside [0, 0.5]', () => {
    for (const ok of [0, 0.04, 0.5]) expect(() => checkRefineMargin(ok)).not.toThrow();
    for (const bad of [-0.01, 0.51, Number.NaN]) expect(() => checkRefineMargin(bad)).toThrow(/refine margin must lie in \[0, 0.5\]/);
  });
});

describe('refineNearDecision', () => {
  it('scores again only the frames near 0.5, in order, and puts their new scores in their places', async () => {
    const frames = [0, 1, 2, 3, 4].map((i) => frame(i));
    const asked: string[][] = [];
    const refinement = {
      margin: 0.04,
      // The refined virus probability: 0.9 + the frame's number / 100.
      score: async (fs: FrameItem[]) => {
        asked.push(fs.map((f) => f.id));
        return fs.map((f) => probabilitiesOf([0.9 + Number(f.id.match(/_(\d+)F1/)![1]) / 100]));
      },
    };
    const first = probabilitiesOf([0.51, 0.8, 0.49, 0.2, 0.539]);
    const { probabilities, refined } = await refineNearDecision(frames, first, refinement);
    expect(asked).toEqual([['r_chunk_0F1', 'r_chunk_2F1', 'r_chunk_4F1']]);
    expect(refined).toBe(3);
    expect(Array.from(probabilities.filter((_, k) => k % 2)).map((v) => Math.round(v * 1000) / 1000)).toEqual([0.9, 0.8, 0.92, 0.2, 0.94]);
    expect(Array.from(probabilities.subarray(2, 4))).toEqual(Array.from(first.subarray(2, 4))); // a row not refined: the same values
    expect(Array.from(first)).toEqual(Array.from(probabilitiesOf([0.51, 0.8, 0.49, 0.2, 0.539]))); // the workers' first rows untouched
  });

  it('with features after the scores (width > 2): a refined row takes its refined features too, the others keep theirs', async () => {
    const frames = [0, 1, 2].map((i) => frame(i));
    // Rows of width 4: (1 − v, v, feature, feature); refined rows come back with features 100 + the frame's number.
    const row = (v: number, f: number) => [1 - v, v, f, f + 0.5];
    const first = Float32Array.from([...row(0.49, 0), ...row(0.9, 1), ...row(0.52, 2)]);
    const refinement = { margin: 0.04, score: async (fs: FrameItem[]) => fs.map((f) => Float32Array.from(row(0.7, 100 + Number(f.id.match(/_(\d+)F1/)![1])))) };
    const { probabilities, refined } = await refineNearDecision(frames, first, refinement, 4);
    expect(refined).toBe(2);
    expect(Array.from(probabilities)).toEqual(Array.from(Float32Array.from([...row(0.7, 100), ...row(0.9, 1), ...row(0.7, 102)])));
    expect(rowsNearDecision(first, 3, 0.04, 4)).toEqual([0, 2]);
  });

  it('asks nothing when no frame is near the decision', async () => {
    let calls = 0;
    const p = probabilitiesOf([0.1, 0.95]);
    const out = await refineNearDecision([frame(0), frame(1)], p, { margin: 0.04, score: async () => { calls++; return []; } });
    expect(calls).toBe(0);
    expect(out).toEqual({ probabilities: p, refined: 0 });
  });

  it('fails clearly when the refinement returns the wrong number of rows', async () => {
    await expect(refineNearDecision([frame(0)], probabilitiesOf([0.5]), { margin: 0.04, score: async () => [] })).rejects.toThrow(/returned 0 score rows for 1 frames/);
  });
});

describe('refinementFor', () => {
  const refine = async (fs: FrameItem[]) => fs.map(() => new Float32Array(1));
  const plan = { tokenBudget: 32768 };
  it('refines only where the workers have a more accurate precision and the margin is above 0, a budget of frames at a time', () => {
    expect(refinementFor({ refinesTo: 'bf16', refine, plan })).toMatchObject({ margin: DEFAULT_REFINE_MARGIN, precision: 'bf16', batchTokens: 32768 });
    expect(refinementFor({ refinesTo: 'bf16', refine, plan }, 0.1)).toMatchObject({ margin: 0.1 });
    expect(refinementFor({ refinesTo: 'bf16', refine, plan }, 0)).toBeUndefined();
    expect(refinementFor({ refinesTo: undefined, refine, plan })).toBeUndefined();
    expect(() => refinementFor({ refinesTo: 'bf16', refine, plan }, 0.7)).toThrow(/refine margin/);
  });
});

describe('embedForRefinement', () => {
  it('submits the frames flagged to refine, in batches within the token budget, and returns their vectors in order', async () => {
    const batches: PackItem<FrameItem>[][] = [];
    const pool = serialEmbedder<FrameItem>(async (batch) => {
      batches.push(batch.items);
      return batch.items.map((item) => Float32Array.from([item.value.protein.length, item.value.refine ? 1 : 0]));
    });
    const frames = [50, 10, 30, 40, 20].map((residues, i) => frame(i, residues));
    const vectors = await embedForRefinement(pool, frames, 64); // ESM-2 tokens: residues + 2
    expect(vectors.map((v) => Array.from(v))).toEqual([50, 10, 30, 40, 20].map((r) => [r, 1]));
    for (const b of batches) expect(b.reduce((sum, item) => sum + item.tokens, 0)).toBeLessThanOrEqual(64);
    expect(batches.flat().map((item) => item.index).sort()).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('features model: frames to refine', () => {
  /** An embedder that records, per call, whether it ran inside the refinement precision; OOM above `limit`. */
  function embedder(dim: number, refining: { on: boolean }, seen: boolean[], limit = 100): SequenceEmbedder {
    return {
      dim,
      tokenCount: (s) => s.length,
      embed(sequences) {
        seen.push(refining.on); // read synchronously, as a forward pass queues its kernels
        if (sequences.length > limit) return Promise.reject(Object.assign(new Error('CUDA out of memory'), { name: 'CudaOutOfMemoryError' }));
        return Promise.resolve(sequences.map((s) => Float32Array.from({ length: dim }, () => s.length)));
      },
      dispose: () => undefined,
    };
  }
  const compute = { backend: 'cuda' as const, precision: 'fp8' as const };
  const setup = (esmLimit = 100) => {
    const refining = { on: false };
    const seen = { dnabert: [] as boolean[], esm: [] as boolean[] };
    const scope = <T>(fn: () => T): T => {
      refining.on = true;
      try {
        return fn();
      } finally {
        refining.on = false;
      }
    };
    const model = featuresModel(embedder(3, refining, seen.dnabert), embedder(2, refining, seen.esm, esmLimit), compute, undefined, scope);
    return { model, seen };
  };

  it('runs a batch of frames to refine inside the refinement precision, both models, and counts its frames', async () => {
    const { model, seen } = setup();
    await model.embed([frame(0), frame(1)].map((f) => ({ ...f, refine: true as const })));
    expect(seen).toEqual({ dnabert: [true], esm: [true] });
    expect(model.counters().refinedFrames).toBe(2);
  });

  it('runs other batches as they are', async () => {
    const { model, seen } = setup();
    await model.embed([frame(0), frame(1)]);
    expect(seen).toEqual({ dnabert: [false], esm: [false] });
    expect(model.counters().refinedFrames).toBe(0);
  });

  it('keeps the halves of a refinement batch that ran out of memory inside the precision', async () => {
    const { model, seen } = setup(2);
    const vectors = await model.embed([0, 1, 2, 3, 4].map((i) => ({ ...frame(i), refine: true as const })));
    expect(vectors).toHaveLength(5);
    expect(seen.esm.length).toBeGreaterThan(1);
    expect(seen.esm.every((on) => on)).toBe(true);
  });

  it('refuses a batch that mixes frames to refine with others', async () => {
    const { model } = setup();
    await expect(model.embed([frame(0), { ...frame(1), refine: true }])).rejects.toThrow(/mixes frames to refine with others/);
  });
});

describe('writePredictions with refinement', () => {
  it('writes each frame near 0.5 with its refined scores, the others as first scored', async () => {
    const n = 300;
    const virus = (i: number) => (i % 7 === 0 ? 0.5 + ((i % 3) - 1) * 0.01 : 0.1 + (i % 5) * 0.2 > 0.5 ? 0.9 : 0.1);
    const results = (async function* (): AsyncGenerator<EmbeddingResult<FrameItem>> {
      for (let i = 0; i < n; i++) yield { index: i, restored: false, item: frame(i), vector: probabilitiesOf([virus(i)]) };
    })();
    const refinedIds: string[] = [];
    const refine = {
      margin: 0.04,
      score: async (fs: FrameItem[]) => {
        refinedIds.push(...fs.map((f) => f.id));
        return fs.map(() => probabilitiesOf([0.75]));
      },
    };
    const written: { id: string; virus: number }[] = [];
    const writer = { async writeBatch(ids: readonly string[], p: ArrayLike<number>) { ids.forEach((id, r) => written.push({ id, virus: p[2 * r + 1] })); } };
    expect(await writePredictions(results, { writer, refine })).toBe(n);
    const near = Array.from({ length: n }, (_, i) => i).filter((i) => Math.abs(virus(i) - 0.5) < 0.04);
    expect(near.length).toBeGreaterThan(30);
    expect(refinedIds).toEqual(near.map((i) => frame(i).id));
    expect(written.map((w) => w.id)).toEqual(Array.from({ length: n }, (_, i) => frame(i).id));
    written.forEach((w, i) => expect(w.virus).toBeCloseTo(near.includes(i) ? 0.75 : virus(i), 6));
  });
});

describe('RefinementBatcher', () => {
  const embedded: string[][] = [];
  const embed = async (fs: FrameItem[]) => {
    embedded.push(fs.map((f) => f.id));
    return fs.map((f) => Float32Array.from([f.protein.length]));
  };

  it('gathers requests until a batch of tokens, then sends them together and gives each its own rows', async () => {
    embedded.length = 0;
    const batcher = new RefinementBatcher(embed, 20); // frame(i, 3): 5 ESM-2 tokens
    const first = batcher.request([frame(0), frame(1)], 0);
    const second = batcher.request([frame(2)], 1);
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(embedded).toEqual([]); // 15 tokens: still waiting
    const third = batcher.request([frame(3, 7)], 2); // 9 more: 24 ≥ 20
    expect((await first).map((v) => v[0])).toEqual([3, 3]);
    expect((await second).map((v) => v[0])).toEqual([3]);
    expect((await third).map((v) => v[0])).toEqual([7]);
    expect(embedded).toEqual([['r_chunk_0F1', 'r_chunk_1F1', 'r_chunk_2F1', 'r_chunk_3F1']]);
  });

  it('sends what waits when the caller is blocked on a turn that waits, or on one whose request is still to come', async () => {
    embedded.length = 0;
    const batcher = new RefinementBatcher(embed, 1_000_000);
    const zero = batcher.request([frame(0)], 0);
    const one = batcher.request([frame(1)], 1);
    await batcher.whileBlocked(zero, 0); // turn 0 waits: it goes, with turn 1's frame
    expect(embedded).toEqual([['r_chunk_0F1', 'r_chunk_1F1']]);
    await batcher.whileBlocked(one, 1); // already served: nothing sent
    expect(embedded).toHaveLength(1);
    const three = batcher.request([frame(3)], 3);
    let two: Promise<Float32Array[]> | undefined;
    await batcher.whileBlocked(
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        two = batcher.request([frame(2)], 2); // made while the caller waits for turn 2: goes at once, turn 3's with it
        await two;
      })(),
      2,
    );
    expect(embedded).toEqual([['r_chunk_0F1', 'r_chunk_1F1'], ['r_chunk_3F1', 'r_chunk_2F1']]);
    expect((await three).map((v) => v[0])).toEqual([3]);
    const four = batcher.request([frame(4)], 4);
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(embedded).toHaveLength(2); // no longer blocked: it waits again
    batcher.flush();
    expect((await four).map((v) => v[0])).toEqual([3]);
  });

  it('fails every request of a refinement that failed', async () => {
    const batcher = new RefinementBatcher(() => Promise.reject(new Error('worker died')), 8);
    const a = batcher.request([frame(0)], 0);
    const b = batcher.request([frame(1)], 1);
    await expect(a).rejects.toThrow(/worker died/);
    await expect(b).rejects.toThrow(/worker died/);
  });
});

describe('writePredictions: refinement in flight', () => {
  function run(n: number, virus: (i: number) => number, taken = { count: 0 }): AsyncIterable<EmbeddingResult<FrameItem>> {
    return (async function* () {
      for (let i = 0; i < n; i++) {
        taken.count++;
        yield { index: i, restored: false, item: frame(i), vector: probabilitiesOf([virus(i)]) };
      }
    })();
  }

  it('gathers the frames near 0.5 of many batches into full refinements, writes in order, and reads at most REFINING_BATCHES batches ahead', async () => {
    const n = (REFINING_BATCHES + 20) * ROWS_PER_WRITE + 17;
    const taken = { count: 0 };
    const sizes: number[] = [];
    const refine = {
      margin: 0.04,
      batchTokens: 5 * 400, // 400 frames of 5 tokens
      score: async (fs: FrameItem[]) => {
        sizes.push(fs.length);
        await new Promise((resolve) => setTimeout(resolve, 2));
        return fs.map(() => probabilitiesOf([0.9]));
      },
    };
    const ids: string[] = [];
    const virus: number[] = [];
    let maxAhead = 0;
    const writer = {
      async writeBatch(batch: readonly string[], p: ArrayLike<number>) {
        batch.forEach((id, r) => { ids.push(id); virus.push(p[2 * r + 1]); });
        maxAhead = Math.max(maxAhead, taken.count - ids.length);
      },
    };
    const near = (i: number) => i % 50 === 0; // 2 % of frames, ~5 a batch
    expect(await writePredictions(run(n, (i) => (near(i) ? 0.5 : 0.1), taken), { writer, refine })).toBe(n);
    expect(ids).toEqual(Array.from({ length: n }, (_, i) => frame(i).id));
    virus.forEach((v, i) => expect(v).toBeCloseTo(near(i) ? 0.9 : 0.1, 6));
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(Math.ceil(n / 50));
    expect(sizes.slice(0, -1).every((size) => size >= 100), JSON.stringify(sizes)).toBe(true); // not one refinement per MLP batch
    expect(maxAhead).toBeLessThanOrEqual((REFINING_BATCHES + 2) * ROWS_PER_WRITE);
  });

  it('never waits for frames that cannot come: a few near 0.5 at the start, then none', async () => {
    const refine = { margin: 0.04, batchTokens: 1_000_000, score: async (fs: FrameItem[]) => fs.map(() => probabilitiesOf([0.9])) };
    const written: number[] = [];
    const writer = { async writeBatch(_: readonly string[], p: ArrayLike<number>) { for (let r = 1; r < p.length; r += 2) written.push(p[r]); } };
    const n = (REFINING_BATCHES + 3) * ROWS_PER_WRITE;
    expect(await writePredictions(run(n, (i) => (i < 3 ? 0.5 : 0.1)), { writer, refine })).toBe(n);
    expect(written.slice(0, 4).map((v) => Math.round(v * 10) / 10)).toEqual([0.9, 0.9, 0.9, 0.1]);
  });

  it('fails with the refinement\'s error and leaves nothing running', async () => {
    const refine = { margin: 0.04, batchTokens: 100, score: async () => Promise.reject(new Error('worker died')) };
    const writer = { writeBatch: async () => undefined };
    await expect(writePredictions(run(3 * ROWS_PER_WRITE, () => 0.5), { writer, refine })).rejects.toThrow(/worker died/);
  });
});
