import { startFeatures, type Features, type FeatureModelPaths } from '@virnucpro/predict';
import type { PredictOptions } from '../config/predict-options.js';
import type { WorkerPluginSpec } from '@virnucpro/runtime';
import { UsageError, asUsageAsync } from '../errors.js';

/**
 * The feature model for a run of `predict`: `--devices` checked (numbers, none twice: refused before any GPU is
 * looked for, so the same answer on a machine with or without one), then @virnucpro/predict's startFeatures, which
 * plans the compute once (`auto`, precision, devices) and starts the pool, which scores the frames with the MLP
 * where they are embedded: worker processes (--devices / --workers N)
 * or, by default, one worker thread of this process, which keeps the models' compute off the main thread so that
 * signals, checkpoint timers and progress run on time. A setting compute refuses is a usage error.
 */
export async function startFeaturePool(
  options: PredictOptions,
  models: FeatureModelPaths & { mlp: string },
  pool: { mlpThreads?: number | undefined; plugin?: WorkerPluginSpec | undefined } = {},
): Promise<Features> {
  const devices = options.devices.map((d) => {
    const n = Number(d);
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`--devices: '${d}' is not a device number`);
    return n;
  });
  const twice = devices.find((n, i) => devices.indexOf(n) !== i);
  if (twice !== undefined) throw new UsageError(`--devices: GPU ${twice} is listed twice (one worker per GPU; --workers N runs N on each)`);
  return asUsageAsync(
    startFeatures({
      models,
      ...(pool.mlpThreads !== undefined ? { mlpThreads: pool.mlpThreads } : {}),
      ...(pool.plugin ? { plugin: pool.plugin } : {}),
      // --save-embeddings: each frame's features come back with its scores (opt-in: 13 KB a frame instead of 8 bytes).
      ...(options.saveEmbeddings ? { keepFeatures: true } : {}),
      compute: {
        backend: options.backend,
        ...(options.precision ? { precision: options.precision } : {}),
        devices,
        workers: options.workers,
        ...(options.tokenBudget !== undefined ? { tokenBudget: options.tokenBudget } : {}),
        ...(options.threads !== undefined ? { threads: options.threads } : {}),
      },
    }),
  );
}

/** --devices or --workers N: worker processes; otherwise the default mode, the models in a thread of this process. */
export function usesWorkerProcesses(options: PredictOptions): boolean {
  return options.devices.length > 0 || options.workers > 0;
}
