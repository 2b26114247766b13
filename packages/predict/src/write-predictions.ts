import type { EmbeddingResult } from '@virnucpro/runtime';
import type { FrameItem } from './frame-item.js';
import { refineNearDecision, type FrameRefinement } from './frame-refinement.js';
import { RefinementBatcher } from './refinement-batcher.js';
import { SCORE_DIM } from './scoring-model.js';

/** Rows per write (and per refinement decision): the original's DataLoader batch size; does not change results. */
export const ROWS_PER_WRITE = 256;

/**
 * Batches of rows left refining while the next fills, when frames are refined (writePredictions' `refine`):
 * 64 × 256 frames hold ~280 frames near 0.5 at the 1.7 % of 150-bp reads, ~15K tokens to refine together.
 */
export const REFINING_BATCHES = 64;

/** Where the rows go: `PredictionWriter` (prediction_results.txt, the consensus csv, the per-record files). */
export interface PredictionSink {
  writeBatch(ids: readonly string[], probabilities: ArrayLike<number>): Promise<void>;
}

/** Where the features go when the workers send them (`--save-embeddings`: SavedEmbeddingsWriter). */
export interface FeatureSink {
  /** The features of `ids`, row-major, `dim` values a row, in input order: each batch after its rows went to the writer. */
  writeFeatures(ids: readonly string[], features: Float32Array, dim: number): Promise<void>;
}

export interface WritePredictionsOptions {
  writer: PredictionSink;
  /** Hears each result as it is taken (e.g. a progress bar). */
  onResult?: (result: EmbeddingResult<FrameItem>) => void;
  /**
   * The second look at frames scored near 0.5 (frame-refinement.ts): each batch's such frames are scored again at
   * the refinement precision before the batch is written. Absent: every row as the workers first scored it.
   */
  refine?: FrameRefinement;
  /**
   * The features of every frame, as the final scores came from them (refined ones included), for a pool started
   * with `keepFeatures`: each result is then its two scores followed by its features. Absent: results are two scores.
   */
  features?: FeatureSink;
}

/**
 * Writes the scored frames of `results` (in input order, as `runEmbedding` yields them from a pool started with the
 * MLP: each vector the frame's two probabilities), `ROWS_PER_WRITE` rows per call, each batch written only after the
 * one before it; the next result is taken only then, so a slow disk paces the whole run. With `refine`, a batch's
 * frames near 0.5 are scored again before it is written, up to REFINING_BATCHES batches' gathered into one
 * refinement. With `features` (a pool started with `keepFeatures`), each batch's features follow its rows to that
 * sink, refined frames' as refined. Resolves with the number of rows written.
 */
export async function writePredictions(results: AsyncIterable<EmbeddingResult<FrameItem>>, options: WritePredictionsOptions): Promise<number> {
  const { writer } = options;
  // Refinement: the frames near 0.5 of many batches go to the GPU together (refinement-batcher.ts), so many
  // batches may wait for theirs while the next fills; blocked on the oldest, the reader has whatever waits sent.
  const batcher = options.refine ? new RefinementBatcher(options.refine.score, options.refine.batchTokens ?? 0) : undefined;
  const depth = batcher ? REFINING_BATCHES : 1;
  // Waiting on batch `turn` blocks the reader: the batcher sends its frames (and what waits with them) at once.
  const settle = (wait: Promise<void>, turn: number) => (batcher ? batcher.whileBlocked(wait, turn) : wait);
  const sink = options.features;
  let turns = 0;
  let frames: FrameItem[] = [];
  // A row per frame: its two scores, then (with `features`) its features; the width is the first result's.
  let width = sink ? 0 : SCORE_DIM;
  let rows = new Float32Array(ROWS_PER_WRITE * width);
  let written = 0;
  let writing: Promise<void> = Promise.resolve();
  const inFlight: { chain: Promise<void>; turn: number }[] = [];
  const write = async () => {
    if (frames.length === 0) return;
    const batch = frames;
    const values = rows.subarray(0, batch.length * width);
    const turn = turns++;
    const refine = options.refine && batcher ? { ...options.refine, score: (fs: FrameItem[]) => batcher.request(fs, turn) } : undefined;
    const previous = writing;
    const w = width;
    writing = (async () => {
      const v = refine ? (await refineNearDecision(batch, values, refine, w)).probabilities : values;
      await previous;
      const ids = batch.map((frame) => frame.id);
      if (!sink) {
        await writer.writeBatch(ids, v);
      } else {
        const { scores, features } = splitRows(v, batch.length, w);
        await writer.writeBatch(ids, scores);
        await sink.writeFeatures(ids, features, w - SCORE_DIM);
      }
      written += batch.length;
    })();
    writing.catch(() => undefined); // its error surfaces where it is awaited, never as an unhandled rejection
    inFlight.push({ chain: writing, turn });
    frames = [];
    rows = new Float32Array(ROWS_PER_WRITE * width);
    if (inFlight.length > depth) {
      const oldest = inFlight.shift()!;
      await settle(oldest.chain, oldest.turn);
    }
  };
  try {
    for await (const result of results) {
      if (width === 0) {
        if (!(result.vector.length > SCORE_DIM)) throw new Error(`frame ${result.item.id}: expected its ${SCORE_DIM} scores and its features, got ${result.vector.length} values (start the features with keepFeatures)`);
        width = result.vector.length;
        rows = new Float32Array(ROWS_PER_WRITE * width);
      }
      if (result.vector.length !== width) {
        throw new Error(sink
          ? `frame ${result.item.id}: expected its ${SCORE_DIM} scores and ${width - SCORE_DIM} features, got ${result.vector.length} values`
          : `frame ${result.item.id}: expected its ${SCORE_DIM} scores, got ${result.vector.length} values (start the features with the MLP)`);
      }
      rows.set(result.vector, frames.length * width);
      frames.push(result.item);
      options.onResult?.(result);
      if (frames.length === ROWS_PER_WRITE) await write();
    }
    await write();
  } catch (error) {
    await settle(writing, turns).catch(() => undefined); // no write left running behind the caller's clean-up
    throw error;
  }
  await settle(writing, turns);
  return written;
}

/** Rows of two scores then features → the scores (two a row) and the features (the rest), each row-major. */
function splitRows(values: Float32Array, count: number, width: number): { scores: Float32Array; features: Float32Array } {
  const dim = width - SCORE_DIM;
  const scores = new Float32Array(count * SCORE_DIM);
  const features = new Float32Array(count * dim);
  for (let row = 0; row < count; row++) {
    const at = row * width;
    scores[row * SCORE_DIM] = values[at];
    scores[row * SCORE_DIM + 1] = values[at + 1];
    features.set(values.subarray(at + SCORE_DIM, at + width), row * dim);
  }
  return { scores, features };
}
