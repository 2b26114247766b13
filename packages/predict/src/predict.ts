import { loadMlp, PredictionWriter, ThreadedMlp, type PredictionFiles, type RegionOptions } from '@virnucpro/consensus';
import type { ComputeRequest } from '@virnucpro/compute';
import { runEmbedding } from '@virnucpro/runtime';
import type { SequenceRecord } from '@virnucpro/sixframe';
import type { FeatureModelPaths } from './features-model.js';
import { framesFrom } from './frames-from.js';
import { modelLoadError } from './model-load-error.js';
import { recordFacts } from './record-facts.js';
import { startFeatures, type Features } from './start-features.js';
import { writePredictions } from './write-predictions.js';
import { checkRefineMargin, refinementFor } from './frame-refinement.js';

export interface PredictOptions {
  /** The DNA records (a `FastaRecord` from `@virnucpro/fasta-stream` fits), read one at a time as the run needs them. */
  records: AsyncIterable<SequenceRecord> | Iterable<SequenceRecord>;
  /** The folder of the result files (created; files appear only when the run is complete). */
  outDir: string;
  /** ESM-2 and DNABERT-S folders and the VirNucPro MLP (`.pth`) trained for `chunkLength`. */
  models: FeatureModelPaths & { mlp: string };
  /** 300 or 500: the MLP's chunk length (default 500). */
  chunkLength?: number;
  /** `--backend` and the other compute flags (default: `auto`, the models on a worker thread). */
  compute?: ComputeRequest;
  /** How viral chunks join into regions (`--region-gap`, `--region-max-gap`, `--min-region-chunks`). */
  regions?: RegionOptions;
  /** Frames packed together (default from the token budget, as `virnucpro predict`). */
  packWindow?: number;
  /**
   * fp8: frames whose virus score lies within this of 0.5 are embedded again in bf16 and classified from that
   * (`--refine-margin`, frame-refinement.ts; default 0.04; 0: never). Other precisions have nothing to refine.
   */
  refineMargin?: number;
}

export interface PredictResult {
  sequences: number;
  chunks: number;
  frames: number;
  files: PredictionFiles;
}

/**
 * `virnucpro predict` as one call on your own records: the same rows and files (prediction_results.txt,
 * prediction_results_highestscore.csv, sequence_summary.tsv, chunk_scores.tsv, viral_regions.tsv/.bed) from the
 * same models. It is the composition the README spells out: `startFeatures` → `runEmbedding` of `framesFrom(records)`
 * → `writePredictions` into a `PredictionWriter`. (The command adds input checks, checkpoints, progress, and
 * run_summary.json.)
 */
export async function predict(options: PredictOptions): Promise<PredictResult> {
  const chunkLength = options.chunkLength ?? 500;
  if (options.refineMargin !== undefined) checkRefineMargin(options.refineMargin);
  const mlp = await loadMlp(options.models.mlp).catch((err: unknown) => {
    throw modelLoadError('MLP', options.models.mlp, err);
  });
  const features = await startFeatures({ models: options.models, compute: options.compute ?? { backend: 'auto' } });
  const threadedMlp = ThreadedMlp.start(mlp);
  try {
    assertFeaturesFit(mlp.inputDim, features, options.models.mlp);
    const writer = await PredictionWriter.create(options.outDir, { chunkFiles: true, ...(options.regions ? { regions: options.regions } : {}) });
    try {
      const counts = { sequences: 0, chunks: 0 };
      const pack = features.pack(options.packWindow);
      const run = runEmbedding({
        items: framesFrom(asAsync(options.records), {
          chunkLength,
          onRecord: (record, chunks) => {
            counts.sequences++;
            counts.chunks += chunks.length;
            writer.declareRecord(record.id, chunks, recordFacts(record));
          },
        }),
        pack,
        maxReadAhead: readAheadFor(pack.window),
        pool: features.pool,
      });
      const refine = refinementFor(features, options.refineMargin);
      const frames = await writePredictions(run, { mlp: threadedMlp, writer, ...(refine ? { refine } : {}) });
      return { ...counts, frames, files: await writer.commit() };
    } catch (err) {
      await writer.discard().catch(() => undefined);
      throw err;
    }
  } finally {
    await features.close().catch(() => undefined);
    await threadedMlp.close();
  }
}

/**
 * Frames read ahead of the classifier: results wait up to a window for their turn (input order) and then for the
 * MLP; with the runtime's default (2 windows) the next window could not be read while the MLP caught up, and the
 * GPU ran dry every few seconds (H100, 100K frames: 0.4–0.8 s gaps, pool empty each time). Frames are small and a
 * waiting result is 13 KB: 4 windows hold ~100 MB.
 */
export function readAheadFor(packWindow: number): number {
  return 4 * packWindow;
}

/** The MLP must take the features the models make ([DNABERT-S | ESM-2]: 768 + 2560 for the released ones). */
export function assertFeaturesFit(mlpInputDim: number, features: Pick<Features, 'pool'>, mlpPath: string): void {
  if (mlpInputDim !== features.pool.dim) {
    throw new FeatureMismatchError(
      `the MLP ${mlpPath} expects ${mlpInputDim}-d features, but the models make ${features.pool.dim}-d ones ([DNABERT-S | ESM-2]); use the MLP trained for these models`,
    );
  }
}

/** The MLP and the embedding models do not belong together (a usage error to the CLI). */
export class FeatureMismatchError extends Error {
  override readonly name = 'FeatureMismatchError';
}

async function* asAsync<T>(items: AsyncIterable<T> | Iterable<T>): AsyncGenerator<T> {
  yield* items;
}
