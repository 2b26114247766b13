import { fileURLToPath } from 'node:url';
import type { WorkerPluginSpec } from '@virnucpro/runtime';
import type { FeatureModelPaths } from './features-model.js';

/** What each worker is told to load: the two embedding models and, to score frames there, VirNucPro's MLP. */
export interface FeaturesWorkerOptions extends FeatureModelPaths {
  /** The MLP (`.pth` or safetensors): the worker returns each frame's two scores instead of its features. */
  mlp?: string;
  /** Worker threads of the MLP in each worker (0: on the worker's own thread). */
  mlpThreads?: number;
  /** With `mlp`: each frame's features follow its two scores (scoring-model.ts), for `--save-embeddings`. */
  withFeatures?: boolean;
}

/**
 * The feature model as a runtime worker plugin: each worker loads this package's `features-worker.js` by its path
 * (beside this file, also in a bundle that keeps the two side by side) and builds the model from `options`, having
 * begun its backend's start with `features-worker-prepare.js` (beside it too) while that code loads.
 */
export function featuresWorkerPlugin(options: FeaturesWorkerOptions): WorkerPluginSpec {
  const { esm, dnabert, mlp, mlpThreads, withFeatures } = options;
  return {
    module: fileURLToPath(new URL('./features-worker.js', import.meta.url)),
    export: 'featuresWorkerFactory',
    prepare: { module: fileURLToPath(new URL('./features-worker-prepare.js', import.meta.url)), export: 'prepareWorkerCompute' },
    options: { esm, dnabert, ...(mlp !== undefined ? { mlp } : {}), ...(mlpThreads !== undefined ? { mlpThreads } : {}), ...(withFeatures ? { withFeatures } : {}) },
  };
}
