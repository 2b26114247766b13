import type { ComputeDescription } from '@virnucpro/compute';
import { isOutOfMemory, modelLabel, modelLoadError } from '@virnucpro/predict';
import type { OfferedModel } from './embedding-models.js';

/** The loaded model as the log, the summary and the output's metadata name it (what the model thread reports too). */
export interface LoadedModelInfo {
  name: string;
  dim: number;
  config: object;
  title: string;
  numLayers: number;
  compute: ComputeDescription;
}

/**
 * Loads `offered` from `path` on the started `compute`, on whichever thread calls it (`embed`'s main thread or its
 * model thread). A model that cannot be read is the user's to fix: a ModelLoadError (exit 2), as predict says it;
 * running out of memory is not.
 */
export async function loadEmbeddingModel(offered: OfferedModel, path: string, settings: Record<string, string>, compute: ComputeDescription) {
  const model = await offered.load(path, { precision: compute.precision, settings }).catch((err: unknown) => {
    throw isOutOfMemory(err) ? err : modelLoadError(modelLabel(offered.label), path, err);
  });
  const info: LoadedModelInfo = { name: model.name, dim: model.dim, config: model.config, title: offered.title(model), numLayers: model.config.numLayers, compute };
  return { model, info };
}
