// The module @virnucpro/runtime loads on `embed`'s model thread by its path (embed-thread.ts): one embedding model on
// the backend the main thread planned, taking each record's token ids and returning its mean vector.
import { startCompute, batchesInFlight, type ComputeSettings } from '@virnucpro/compute';
import type { Embedder } from '@virnucpro/ops';
import type { WorkerModelFactory } from '@virnucpro/runtime';
import { embeddingModels } from './embedding-models.js';
import { loadEmbeddingModel } from './load-embedding-model.js';

/** What the model thread is told to load: a model of `virnucpro embed` by its command name, from `path`. */
export interface EmbedWorkerOptions {
  model: string;
  path: string;
  /** The model's settings as chosen on the command line (e.g. DNABERT-S's attention). */
  settings: Record<string, string>;
}

/** The runtime's factory signature: (options, ctx) → an Embedder over token ids. */
export const embedWorkerFactory: WorkerModelFactory<Int32Array, ComputeSettings> = async (options, ctx): Promise<Embedder<Int32Array>> => {
  if (!ctx.compute) throw new Error("the embed worker needs its compute settings (the pool's `compute`)");
  const { model: name, path, settings } = options as EmbedWorkerOptions;
  const descriptor = embeddingModels.find((m) => m.name === name);
  if (!descriptor) throw new Error(`no embedding model named ${name}`);
  const compute = await startCompute(ctx.compute);
  const { model, info } = await loadEmbeddingModel(descriptor, path, settings, compute);
  const { tokenized } = model;
  if (!tokenized) throw new Error(`the ${name} model takes no token ids`);
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
