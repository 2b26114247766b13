import type { EmbeddingResult } from '@virnucpro/runtime';
import type { FrameClassifier } from './frame-classifier.js';
import type { FrameItem } from './frame-item.js';
import { refineNearDecision, type FrameRefinement } from './frame-refinement.js';
import { RefinementBatcher } from './refinement-batcher.js';

/** Rows per MLP call (the original's DataLoader batch size; does not change results). */
export const MLP_BATCH = 256;

/**
 * MLP batches left classifying or refining while the next fills, when frames are refined (writePredictions'
 * `refine`): 64 × 256 frames hold ~280 frames near 0.5 at the 1.7 % of 150-bp reads, ~15K tokens to refine together.
 */
export const REFINING_BATCHES = 64;

/** Where the rows go: `PredictionWriter` (prediction_results.txt, the consensus csv, the per-record files). */
export interface PredictionSink {
  writeBatch(ids: readonly string[], probabilities: ArrayLike<number>): Promise<void>;
}

export interface WritePredictionsOptions {
  mlp: FrameClassifier;
  writer: PredictionSink;
  /** Hears each result as it is taken (e.g. a progress bar). */
  onResult?: (result: EmbeddingResult<FrameItem>) => void;
  /**
   * The second look at frames scored near 0.5 (frame-refinement.ts): each MLP batch's such frames are embedded again
   * and classified from those features before the batch is written. Absent: every row as the MLP first gave it.
   */
  refine?: FrameRefinement;
}

/**
 * Classifies the features of `results` (in input order, as `runEmbedding` yields them) with the MLP and writes the
 * rows, `MLP_BATCH` rows per call: one batch classifies while the next fills, and a batch is written only after the
 * one before it. The next result is taken only then, so a slow MLP or disk paces the whole run. With `refine`, a
 * batch's frames near 0.5 are refined between its classification and its write, up to REFINING_BATCHES batches'
 * gathered into one refinement.
 * Resolves with the number of rows written.
 */
export async function writePredictions(results: AsyncIterable<EmbeddingResult<FrameItem>>, options: WritePredictionsOptions): Promise<number> {
  const { mlp, writer } = options;
  const dim = mlp.inputDim;
  // Refinement: the frames near 0.5 of many MLP batches go to the GPU together (refinement-batcher.ts), so many
  // batches may wait for theirs while the next fills; blocked on the oldest, the reader has whatever waits sent.
  const batcher = options.refine ? new RefinementBatcher(options.refine.embed, options.refine.batchTokens ?? 0) : undefined;
  const depth = batcher ? REFINING_BATCHES : 1;
  // Waiting on batch `turn` blocks the reader: the batcher sends its frames (and what waits with them) at once.
  const settle = (wait: Promise<void>, turn: number) => (batcher ? batcher.whileBlocked(wait, turn) : wait);
  let turns = 0;
  let frames: FrameItem[] = [];
  let rows = new Float32Array(MLP_BATCH * dim);
  let written = 0;
  let classifying: Promise<void> = Promise.resolve();
  const inFlight: { chain: Promise<void>; turn: number }[] = [];
  const classify = async () => {
    if (frames.length === 0) return;
    const batch = frames;
    const turn = turns++;
    const refine = options.refine && batcher ? { ...options.refine, embed: (fs: FrameItem[]) => batcher.request(fs, turn) } : undefined;
    const probabilities = mlp.predict(rows.subarray(0, batch.length * dim), batch.length);
    const previous = classifying;
    classifying = (async () => {
      let p = await probabilities;
      if (refine) p = (await refineNearDecision(batch, p, mlp, refine)).probabilities;
      await previous;
      await writer.writeBatch(batch.map((frame) => frame.id), p);
      written += batch.length;
    })();
    classifying.catch(() => undefined); // its error surfaces where it is awaited, never as an unhandled rejection
    inFlight.push({ chain: classifying, turn });
    frames = [];
    rows = new Float32Array(MLP_BATCH * dim);
    if (inFlight.length > depth) {
      const oldest = inFlight.shift()!;
      await settle(oldest.chain, oldest.turn);
    }
  };
  try {
    for await (const result of results) {
      rows.set(result.vector, frames.length * dim);
      frames.push(result.item);
      options.onResult?.(result);
      if (frames.length === MLP_BATCH) await classify();
    }
    await classify();
  } catch (error) {
    await settle(classifying, turns).catch(() => undefined); // no write left running behind the caller's clean-up
    throw error;
  }
  await settle(classifying, turns);
  return written;
}
