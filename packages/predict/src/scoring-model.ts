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

/** A features model whose `embed` returns each frame's scores; `describe()` also names the feature size it scores and DNABERT-S's part of it. */
export interface ScoringModel extends Omit<FeaturesModel, 'describe'> {
  describe(): ComputeDescription & { featureDim: number; dnabertDim: number };
}

export interface ScoringOptions {
  /**
   * Each frame's features follow its two scores (`SCORE_DIM + features.dim` values): for `--save-embeddings`, which
   * asks the main process to write them. Off: the features never leave the worker.
   */
  withFeatures?: boolean;
}

/**
 * `features` scored by `mlp`: each batch's features go through the MLP as one call (row by row arithmetic, so a
 * frame's scores depend on its features alone: batch-invariant as the models are). The MLP must take the features'
 * size; the main process checks that before any frame is sent (the worker's describe() names `featureDim`).
 */
export function scoringModel(features: FeaturesModel, mlp: FrameClassifier, options: ScoringOptions = {}): ScoringModel {
  const featureDim = features.dim;
  const withFeatures = options.withFeatures === true;
  return {
    name: features.name,
    dim: withFeatures ? SCORE_DIM + featureDim : SCORE_DIM,
    dnabertDim: features.dnabertDim,
    tokenCount: features.tokenCount,
    ...(features.concurrentBatches !== undefined ? { concurrentBatches: features.concurrentBatches } : {}),
    async embed(items: FrameItem[]): Promise<Float32Array[]> {
      const vectors = await features.embed(items);
      if (mlp.inputDim !== featureDim) throw new Error(`the MLP takes ${mlp.inputDim}-d features, the models make ${featureDim}-d ones`);
      const rows = new Float32Array(vectors.length * featureDim);
      vectors.forEach((v, row) => rows.set(v, row * featureDim));
      const probabilities = await mlp.predict(rows, vectors.length);
      if (!withFeatures) return vectors.map((_, row) => probabilities.slice(SCORE_DIM * row, SCORE_DIM * row + SCORE_DIM));
      return vectors.map((v, row) => {
        const out = new Float32Array(SCORE_DIM + featureDim);
        out.set(probabilities.subarray(SCORE_DIM * row, SCORE_DIM * row + SCORE_DIM), 0);
        out.set(v, SCORE_DIM);
        return out;
      });
    },
    describe: () => ({ ...features.describe(), featureDim, dnabertDim: features.dnabertDim }),
    counters: (): FeaturesCounters => features.counters(),
    dispose() {
      features.dispose();
      void mlp.close?.();
    },
  };
}
