// The module @virnucpro/runtime loads on `embed`'s model thread by its path (embed-thread.ts): one embedding model on
// the backend the main thread planned, taking each record's token ids and returning its mean vector.
import { startCompute, batchesInFlight, type ComputeDescription, type ComputeSettings } from '@virnucpro/compute';
import type { Embedder } from '@virnucpro/ops';
import { isOutOfMemory, modelLabel, modelLoadError } from '@virnucpro/predict';
import type { WorkerModelFactory } from '@virnucpro/runtime';
import { embeddingModels } from './embedding-models.js';

/** What the model thread is told to load: a model of `virnucpro embed` by its command name, from `path`. */
export interface EmbedWorkerOptions {
  model: string;
  path: string;
  /** The model's settings as chosen on the command line (e.g. DNABERT-S's attention). */
  settings: Record<string, string>;
}

/** What the thread reports once its model has loaded: what the log, the summary and the output's metadata need. */
export interface EmbedWorkerInfo {
  name: string;
  dim: number;
  config: object;
  title: string;
  numLayers: number;
  compute: ComputeDescription;
}

/** The runtime's factory signature: (options, ctx) → an Embedder over token ids. */
export const embedWorkerFactory: WorkerModelFactory<Int32Array, ComputeSettings> = async (options, ctx): Promise<Embedder<Int32Array>> => {
  if (!ctx.compute) throw new Error("the embed worker needs its compute settings (the pool's `compute`)");
  const { model: name, path, settings } = options as EmbedWorkerOptions;
  const descriptor = embeddingModels.find((m) => m.name === name);
  if (!descriptor) throw new Error(`no embedding model named ${name}`);
  const compute = await startCompute(ctx.compute);
  // A model that cannot be read is the user's to fix (a ModelLoadError: exit 2); running out of memory is not.
  const model = await descriptor.load(path, { precision: compute.precision, settings }).catch((err: unknown) => {
    throw isOutOfMemory(err) ? err : modelLoadError(modelLabel(descriptor.label), path, err);
  });
  const { tokenized } = model;
  if (!tokenized) throw new Error(`the ${name} model takes no token ids`);
  const info: EmbedWorkerInfo = { name: model.name, dim: model.dim, config: model.config, title: descriptor.title(model), numLayers: model.config.numLayers, compute };
  return {
    name: model.name,
    dim: model.dim,
    tokenCount: (ids) => ids.length,
    embed: (ids) => tokenized.embed(ids),
    // Two on a GPU: the thread launches the next batch while the one before computes.
    concurrentBatches: batchesInFlight(compute.backend),
    describe: () => info,
    dispose: () => model.dispose(),
  };
};
