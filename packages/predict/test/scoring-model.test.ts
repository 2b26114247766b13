// The scoring model (the worker's features model with the MLP on top): each frame comes back as the MLP's two
// probabilities of its own features — the same bytes as MlpClassifier on the main thread, whatever the batch —
// and the worker says which feature size it scores.
import { describe, expect, it } from 'vitest';
import { seededMlp } from './seeded-mlp.js';
import { MlpClassifier, ThreadedMlp } from '@virnucpro/mlp';
import { featuresModel, type SequenceEmbedder } from '../src/features-model.js';
import type { FrameItem } from '../src/frame-item.js';
import { SCORE_DIM, scoringModel } from '../src/scoring-model.js';

/** A deterministic embedder: each value from the sequence and the position alone (no batch effects). */

const embedder = (dim: number): SequenceEmbedder => ({
  dim,
  tokenCount: (s) => s.length,
  embed: async (sequences) => sequences.map((s) => Float32Array.from({ length: dim }, (_, k) => Math.sin(s.length * 0.37 + s.charCodeAt(k % s.length) * 0.11 + k))),
  dispose: () => undefined,
});

const mlpOf = (input: number) => seededMlp(input, 12345);

const frame = (i: number): FrameItem => ({ id: `r${i}_chunk_1F1`, nucleotide: 'ACGT'.repeat(3 + (i % 5)), protein: 'MKV'.repeat(1 + (i % 4)) });
const compute = { backend: 'cpu' as const, precision: 'fp32' as const };

describe('scoringModel', () => {
  it('returns each frame\'s two probabilities: MlpClassifier\'s bytes on its features, whatever the batch', async () => {
    const features = featuresModel(embedder(3), embedder(2), compute);
    const mlp = mlpOf(5);
    const threads = ThreadedMlp.start(mlp, { threads: 2, minRowsPerThread: 1 });
    try {
      const model = scoringModel(features, threads);
      expect(model.dim).toBe(SCORE_DIM);
      expect(model.describe()).toMatchObject({ backend: 'cpu', precision: 'fp32', featureDim: 5 });
      const frames = Array.from({ length: 9 }, (_, i) => frame(i));
      const together = await model.embed(frames);
      const alone = await Promise.all(frames.map(async (f) => (await model.embed([f]))[0]));
      const expected = await features.embed(frames);
      frames.forEach((_, i) => {
        const want = mlp.predict(expected[i], 1);
        expect(Array.from(together[i])).toEqual(Array.from(want));
        expect(Array.from(alone[i])).toEqual(Array.from(want));
      });
    } finally {
      await threads.close();
    }
  });

  it('withFeatures: each frame\'s features follow its two scores, the same scores; DNABERT-S\'s part is named', async () => {
    const features = featuresModel(embedder(3), embedder(2), compute);
    const mlp = mlpOf(5);
    const plain = scoringModel(features, mlp);
    const model = scoringModel(features, mlp, { withFeatures: true });
    expect(model.dim).toBe(SCORE_DIM + 5);
    expect(model.describe()).toMatchObject({ featureDim: 5, dnabertDim: 3 });
    const frames = Array.from({ length: 6 }, (_, i) => frame(i));
    const [rows, scores, expected] = await Promise.all([model.embed(frames), plain.embed(frames), features.embed(frames)]);
    frames.forEach((_, i) => {
      expect(Array.from(rows[i].subarray(0, SCORE_DIM))).toEqual(Array.from(scores[i]));
      expect(Array.from(rows[i].subarray(SCORE_DIM))).toEqual(Array.from(expected[i]));
    });
  });

  it('refuses to score features of another size than the MLP takes', async () => {
    const model = scoringModel(featuresModel(embedder(3), embedder(2), compute), mlpOf(7));
    expect(model.describe().featureDim).toBe(5);
    await expect(model.embed([frame(0)])).rejects.toThrow(/the MLP takes 7-d features, the models make 5-d ones/);
  });
});
