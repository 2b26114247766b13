import { PredictionWriter, type PredictionFiles, type RegionOptions } from '@virnucpro/consensus';
import { loadMlp } from '@virnucpro/mlp';
import type { ComputeRequest } from '@virnucpro/compute';
import type { SequenceRecord } from '@virnucpro/sixframe';
import type { FeatureModelPaths } from './features-model.js';
import { modelLoadError } from './model-load-error.js';
import { runPrediction } from './prediction-run.js';
import { startFeatures, type Features } from './start-features.js';
import { checkRefineMargin } from './frame-refinement.js';

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
 * same models: `startFeatures` with the MLP (frames scored in the workers) → `runPrediction` into a
 * `PredictionWriter` → commit. (The command adds input checks, checkpoints, progress, and run_summary.json.)
 */
export async function predict(options: PredictOptions): Promise<PredictResult> {
  const chunkLength = options.chunkLength ?? 500;
  if (options.refineMargin !== undefined) checkRefineMargin(options.refineMargin);
  // Read here first (it is small): a bad MLP is refused before the embedding models load, and its size checked.
  const mlp = await loadMlp(options.models.mlp).catch((err: unknown) => {
    throw modelLoadError('MLP', options.models.mlp, err);
  });
  const features = await startFeatures({ models: options.models, compute: options.compute ?? { backend: 'auto' } });
  try {
    assertFeaturesFit(mlp.inputDim, features, options.models.mlp);
    const writer = await PredictionWriter.create(options.outDir, { chunkFiles: true, ...(options.regions ? { regions: options.regions } : {}) });
    try {
      const counts = { sequences: 0, chunks: 0 };
      const run = runPrediction({
        features,
        records: asAsync(options.records),
        writer,
        chunkLength,
        ...(options.packWindow !== undefined ? { packWindow: options.packWindow } : {}),
        ...(options.refineMargin !== undefined ? { refineMargin: options.refineMargin } : {}),
        onRecord: (_record, chunks) => {
          counts.sequences++;
          counts.chunks += chunks.length;
        },
      });
      const frames = await run.done;
      return { ...counts, frames, files: await writer.commit() };
    } catch (err) {
      await writer.discard().catch(() => undefined);
      throw err;
    }
  } finally {
    await features.close().catch(() => undefined);
  }
}

/** The MLP must take the features the models make ([DNABERT-S | ESM-2]: 768 + 2560 for the released ones). */
export function assertFeaturesFit(mlpInputDim: number, features: Pick<Features, 'featureDim'>, mlpPath: string): void {
  if (mlpInputDim !== features.featureDim) {
    throw new FeatureMismatchError(
      `the MLP ${mlpPath} expects ${mlpInputDim}-d features, but the models make ${features.featureDim}-d ones ([DNABERT-S | ESM-2]); use the MLP trained for these models`,
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
