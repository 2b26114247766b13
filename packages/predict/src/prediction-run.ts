import type { EmbeddingCheckpoint, EmbeddingResult, RunStats } from '@virnucpro/runtime';
import { runEmbedding } from '@virnucpro/runtime';
import type { ChunkSpan, SequenceRecord } from '@virnucpro/sixframe';
import type { Precision } from '@virnucpro/ops';
import type { FrameItem } from './frame-item.js';
import { framesFrom } from './frames-from.js';
import { refinementFor } from './frame-refinement.js';
import type { PrepWriter } from './prep-writer.js';
import { recordFacts } from './record-facts.js';
import type { Features } from './start-features.js';
import { writePredictions, type FeatureSink, type PredictionSink } from './write-predictions.js';

/** Where a run's rows and records go: `PredictionWriter`. */
export interface PredictionRunWriter extends PredictionSink {
  declareRecord(id: string, layout: readonly ChunkSpan[], facts: { nBases?: number }): void;
}

/** Where a run's features and records go when they are kept (`--save-embeddings`): `SavedEmbeddingsWriter`. */
export interface PredictionRunFeatures extends FeatureSink {
  declareRecord(id: string, layout: readonly ChunkSpan[], facts: { nBases?: number }): void;
}

export interface PredictionRunOptions {
  /** The scoring pool: `startFeatures` with the MLP (each frame's two scores come back from the workers). */
  features: Features;
  /** The records to classify, read one at a time as the run needs them. */
  records: AsyncIterable<SequenceRecord>;
  writer: PredictionRunWriter;
  /** 300 or 500: the MLP's chunk length. */
  chunkLength: number;
  /** Frames packed together (default from the token budget). */
  packWindow?: number;
  /** fp8's second look at frames near 0.5 (frame-refinement.ts; default 0.04; 0: never). */
  refineMargin?: number;
  /**
   * The features of every frame, as its final scores came from them, with the records (the pool must be started
   * with `keepFeatures`; the checkpoint then keeps them beside the scores).
   */
  embeddings?: PredictionRunFeatures;
  /** Scores kept for `--resume`: results restored from it skip the pool, new ones are appended to it. */
  checkpoint?: EmbeddingCheckpoint;
  /** The original tool's three intermediate files, written on the way. */
  intermediate?: PrepWriter;
  /** Hears each record (after the writer), with its chunk layout. */
  onRecord?: (record: SequenceRecord, chunks: ChunkSpan[]) => void;
  /** Hears each scored frame as it is written out, in input order. */
  onResult?: (result: EmbeddingResult<FrameItem>) => void;
}

/** A prediction run under way. */
export interface PredictionRun {
  /** The embedding run's counters (read, embedded, restored, delivered), live. */
  readonly stats: Readonly<RunStats>;
  /** The refinement this run does (fp8 with a margin > 0), or undefined. */
  readonly refinement: { margin: number; precision: Precision } | undefined;
  /** Resolves with the number of frames written once every row is with the writer (not yet committed). */
  readonly done: Promise<number>;
}

/**
 * THE VirNucPro pipeline, once: records → paced frames (`framesFrom`, each record declared to the writer first) →
 * the scoring pool (`runEmbedding`: packed batches, [DNABERT-S | ESM-2] → MLP in the workers, the checkpoint,
 * input order) → refinement near 0.5 → `writePredictions`. `predict()` and `virnucpro predict` both run it; the
 * command adds input checks, the checkpoint, progress, signals and run_summary.json around it.
 */
export function runPrediction(options: PredictionRunOptions): PredictionRun {
  const { features, writer, onRecord } = options;
  const pack = features.pack(options.packWindow);
  const run = runEmbedding({
    items: framesFrom(options.records, {
      chunkLength: options.chunkLength,
      onRecord: (record, chunks) => {
        const facts = recordFacts(record);
        writer.declareRecord(record.id, chunks, facts);
        options.embeddings?.declareRecord(record.id, chunks, facts);
        onRecord?.(record, chunks);
      },
      ...(options.intermediate ? { intermediate: options.intermediate } : {}),
    }),
    pack,
    maxReadAhead: readAheadFor(pack.window),
    pool: features.pool,
    ...(options.checkpoint ? { checkpoint: options.checkpoint, idOf: (frame: FrameItem) => frame.id } : {}),
  });
  const refine = refinementFor(features, options.refineMargin);
  const done = writePredictions(run, {
    writer,
    ...(options.onResult ? { onResult: options.onResult } : {}),
    ...(refine ? { refine } : {}),
    ...(options.embeddings ? { features: options.embeddings } : {}),
  });
  done.catch(() => undefined); // handled where it is awaited; never an unhandled rejection while the caller is busy
  return { stats: run.stats, refinement: refine ? { margin: refine.margin, precision: refine.precision } : undefined, done };
}

/**
 * Frames read ahead of the writer: results wait up to a window for their turn (input order); with the runtime's
 * default (2 windows) the next window could not be read while the writer caught up, and the GPU ran dry every few
 * seconds (H100, 100K frames: 0.4–0.8 s gaps, pool empty each time). A waiting result is a frame and its 2 scores.
 */
export function readAheadFor(packWindow: number): number {
  return 4 * packWindow;
}
