// The whole `classify` step over rows already in memory: MLP in blocks of rows, streamed into a
// PredictionWriter in input order.

import type { FeatureRows, MlpClassifier } from '@virnucpro/mlp';
import { type PredictionFiles, PredictionWriter, type PredictionWriterOptions } from './prediction-writer.js';

export interface ClassifyOptions extends PredictionWriterOptions {
  /** Rows per MLP call (default 256, the original's batch size; it does not change results). */
  batchSize?: number;
  onProgress?: (done: number, total: number) => void;
  /** Stops between batches; nothing is written (the error is the signal's reason). */
  signal?: AbortSignal;
}

export async function classifyFeatures(
  mlp: MlpClassifier,
  features: FeatureRows,
  outDir: string,
  options: ClassifyOptions = {},
): Promise<PredictionFiles> {
  if (features.dim !== mlp.inputDim) {
    throw new Error(`features have ${features.dim} columns but the MLP expects ${mlp.inputDim}`);
  }
  const batch = options.batchSize ?? 256;
  const writer = await PredictionWriter.create(outDir, options);
  try {
    const total = features.ids.length;
    for (let start = 0; start < total; start += batch) {
      options.signal?.throwIfAborted();
      const end = Math.min(total, start + batch);
      const probabilities = mlp.predict(features.data.subarray(start * features.dim, end * features.dim), end - start);
      await writer.writeBatch(features.ids.slice(start, end), probabilities);
      options.onProgress?.(end, total);
    }
    return await writer.commit();
  } catch (error) {
    await writer.discard();
    throw error;
  }
}
