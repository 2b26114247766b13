import type { EmbeddingResult } from '@virnucpro/runtime';
import type { FrameItem } from './frame-item.js';

/** Rows per MLP call (the original's DataLoader batch size; does not change results). */
export const MLP_BATCH = 256;

/** The VirNucPro MLP as the classification needs it: `MlpClassifier` (this thread) or `ThreadedMlp` (worker threads). */
export interface FrameClassifier {
  readonly inputDim: number;
  /** Two probabilities (others, virus) per row of `features` ([rows, inputDim]). */
  predict(features: Float32Array, rows: number): Float32Array | Promise<Float32Array>;
}

/** Where the rows go: `PredictionWriter` (prediction_results.txt, the consensus csv, the per-record files). */
export interface PredictionSink {
  writeBatch(ids: readonly string[], probabilities: ArrayLike<number>): Promise<void>;
}

export interface WritePredictionsOptions {
  mlp: FrameClassifier;
  writer: PredictionSink;
  /** Hears each result as it is taken (e.g. a progress bar). */
  onResult?: (result: EmbeddingResult<FrameItem>) => void;
}

/**
 * Classifies the features of `results` (in input order, as `runEmbedding` yields them) with the MLP and writes the
 * rows, `MLP_BATCH` rows per call: one batch classifies while the next fills, and a batch is written only after the
 * one before it. The next result is taken only then, so a slow MLP or disk paces the whole run. Resolves with the
 * number of rows written.
 */
export async function writePredictions(results: AsyncIterable<EmbeddingResult<FrameItem>>, options: WritePredictionsOptions): Promise<number> {
  const { mlp, writer } = options;
  const dim = mlp.inputDim;
  let ids: string[] = [];
  let rows = new Float32Array(MLP_BATCH * dim);
  let written = 0;
  let classifying: Promise<void> = Promise.resolve();
  const classify = async () => {
    if (ids.length === 0) return;
    const batchIds = ids;
    const probabilities = mlp.predict(rows.subarray(0, ids.length * dim), ids.length);
    const previous = classifying;
    classifying = (async () => {
      const p = await probabilities;
      await previous;
      await writer.writeBatch(batchIds, p);
      written += batchIds.length;
    })();
    ids = [];
    rows = new Float32Array(MLP_BATCH * dim);
    await previous;
  };
  try {
    for await (const result of results) {
      rows.set(result.vector, ids.length * dim);
      ids.push(result.item.id);
      options.onResult?.(result);
      if (ids.length === MLP_BATCH) await classify();
    }
    await classify();
  } catch (error) {
    await classifying.catch(() => undefined); // no write left running behind the caller's clean-up
    throw error;
  }
  await classifying;
  return written;
}
