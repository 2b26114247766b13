import { fileURLToPath } from 'node:url';
import type { WorkerPluginSpec } from '@virnucpro/runtime';
import type { FeatureModelPaths } from './features-model.js';

/**
 * The feature model as a runtime worker plugin: each worker loads this package's `features-worker.js` by its path
 * (beside this file, also in a bundle that keeps the two side by side) and builds the model from `models`.
 */
export function featuresWorkerPlugin(models: FeatureModelPaths): WorkerPluginSpec {
  return { module: fileURLToPath(new URL('./features-worker.js', import.meta.url)), export: 'featuresWorkerFactory', options: { esm: models.esm, dnabert: models.dnabert } };
}
