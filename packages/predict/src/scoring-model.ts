// The feature model with VirNucPro's MLP on top, in the worker: a frame's 3,328 features are scored where they are
// made, and only its two probabilities (others, virus) leave the worker (8 bytes instead of 13 KB: the main process
// neither receives nor classifies features, so its load no longer grows with the number of GPUs).
import type { ComputeDescription } from '@virnucpro/compute';
import type { FeaturesCounters, FeaturesModel } from './features-model.js';
import type { FrameItem } from './frame-item.js';

/** Scores per frame: the MLP's two probabilities (others, virus). */
export const SCORE_DIM = 2;

/** VirNucPro's MLP as the scoring needs it: `MlpClassifier` (this thread) or `ThreadedMlp` (worker threads). */
export interface FrameClassifier {
  readonly inputDim: number;
  /** Two probabilities (others, virus) per row of `features` ([rows, inputDim]). */
  predict(features: Float32Array, rows: number): Float32Array | Promise<Float32Array>;
  close?(): Promise<void>;
}

/** A features model whose `embed` returns each frame's scores; `describe()` also names the feature size it scores. */
export interface ScoringModel extends Omit<FeaturesModel, 'describe'> {
  describe(): ComputeDescription & { featureDim: number };
}

/**
 * `features` scored by `mlp`: each batch's features go through the MLP as one call (row by row arithmetic, so a
 * frame's scores depend on its features alone: batch-invariant as the models are). The MLP must take the features'
 * size; the main process checks that before any frame is sent (the worker's describe() names `featureDim`).
 */
export function scoringModel(features: FeaturesModel, mlp: FrameClassifier): ScoringModel {
  const featureDim = features.dim;
  return {
    name: features.name,
    dim: SCORE_DIM,
    tokenCount: features.tokenCount,
    ...(features.concurrentBatches !== undefined ? { concurrentBatches: features.concurrentBatches } : {}),
    async embed(items: FrameItem[]): Promise<Float32Array[]> {
      const vectors = await features.embed(items);
      if (mlp.inputDim !== featureDim) throw new Error(`the MLP takes ${mlp.inputDim}-d features, the models make ${featureDim}-d ones`);
      const rows = new Float32Array(vectors.length * featureDim);
      vectors.forEach((v, row) => rows.set(v, row * featureDim));
      const probabilities = await mlp.predict(rows, vectors.length);
      return vectors.map((_, row) => probabilities.slice(SCORE_DIM * row, SCORE_DIM * row + SCORE_DIM));
    },
    describe: () => ({ ...features.describe(), featureDim }),
    counters: (): FeaturesCounters => features.counters(),
    dispose() {
      features.dispose();
      void mlp.close?.();
    },
  };
}
