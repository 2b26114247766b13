// The module @virnucpro/runtime loads in each worker (thread or process) by its path (featuresWorkerPlugin): the
// feature model on the backend the parent planned, with VirNucPro's MLP on top when the plugin names one (then the
// worker returns each frame's two scores instead of its features).
import type { ComputeSettings } from '@virnucpro/compute';
import { loadMlp, MlpThreadError, ThreadedMlp } from '@virnucpro/mlp';
import type { Embedder } from '@virnucpro/ops';
import type { WorkerModelFactory } from '@virnucpro/runtime';
import { createFeaturesModel } from './features-model.js';
import type { FeaturesWorkerOptions } from './features-plugin.js';
import type { FrameItem } from './frame-item.js';
import { modelLoadError } from './model-load-error.js';
import { scoringModel } from './scoring-model.js';

/** The runtime's factory signature: (options, ctx) → Embedder. */
export const featuresWorkerFactory: WorkerModelFactory<FrameItem, ComputeSettings> = async (options, ctx): Promise<Embedder<FrameItem>> => {
  if (!ctx.compute) throw new Error('the features worker needs its compute settings (the pool\'s `compute`)');
  const { esm, dnabert, mlp: mlpPath, mlpThreads, withFeatures } = options as FeaturesWorkerOptions;
  // The MLP first: it is small, and a bad file is then refused before minutes of loading the embedding models.
  const mlp = mlpPath === undefined ? undefined : await loadMlp(mlpPath).catch((err: unknown) => {
    throw modelLoadError('MLP', mlpPath, err);
  });
  // Worker threads of this worker: its event loop stays free to launch the next batch while a batch is scored. Started
  // before the models load, so that they are up (each compiles the MLP's WebAssembly) when the first batch is.
  const threaded = mlp ? ThreadedMlp.start(mlp, { threads: mlpThreads ?? 1 }) : undefined;
  const features = await createFeaturesModel({ esm, dnabert }, ctx.compute).catch(async (err: unknown) => {
    await threaded?.close();
    throw err;
  });
  if (!threaded) return features;
  const scoring = scoringModel(features, threaded, { withFeatures: withFeatures === true });
  return {
    ...scoring,
    embed: (items) =>
      scoring.embed(items).catch((err: unknown) => {
        // A dead MLP thread stops this worker's MLP for good: the worker ends (after the batch's failure is sent),
        // and the pool restarts it with a fresh one and sends the batch again, or ends the run in one line.
        if (err instanceof MlpThreadError) setTimeout(() => process.exit(1), 50);
        throw err;
      }),
  };
};
