// The module @virnucpro/runtime loads in each worker (thread or process) by its path (featuresWorkerPlugin): the
// feature model on the backend the parent planned.
import type { ComputeSettings } from '@virnucpro/compute';
import type { WorkerModelFactory } from '@virnucpro/runtime';
import { createFeaturesModel, type FeatureModelPaths } from './features-model.js';
import type { FrameItem } from './frame-item.js';

/** The runtime's factory signature: (options, ctx) → Embedder. */
export const featuresWorkerFactory: WorkerModelFactory<FrameItem, ComputeSettings> = (options, ctx) => {
  if (!ctx.compute) throw new Error('the features worker needs its compute settings (the pool\'s `compute`)');
  return createFeaturesModel(options as FeatureModelPaths, ctx.compute);
};
