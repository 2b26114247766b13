// Feature rows for the classifier, from either
//  - a VirNucPro merged feature file (torch.save of {'ids': [str…], 'data': FloatTensor[N, D]}, as written
//    by the original merge_data / the refactor's merge_features), or
//  - a safetensors file with an `embeddings` [N, D] tensor and metadata `ids` (a JSON array of N strings).
// The original silently pairs the first N ids with the N rows when a merge dropped rows (ids of sequences
// missing from one modality stay in the list); that shifts every later id, so here any count mismatch is
// an error.

import { readSafetensors, readTorchCheckpoint, toFloat32, type TensorData } from '@virnucpro/weights';

export interface FeatureRows {
  ids: string[];
  /** Row-major [ids.length, dim]. */
  data: Float32Array;
  dim: number;
}

export class FeatureFileError extends Error {
  override readonly name = 'FeatureFileError';
  readonly code = 'BAD_INPUT';
}

export async function readFeatures(path: string): Promise<FeatureRows> {
  return path.endsWith('.safetensors') ? readSafetensorsFeatures(path) : readMergedPt(path);
}

async function readSafetensorsFeatures(path: string): Promise<FeatureRows> {
  const { tensors, metadata } = await readSafetensors(path);
  const embeddings = tensors.get('embeddings');
  if (!embeddings) throw new FeatureFileError(`${path}: no "embeddings" tensor (found: ${[...tensors.keys()].join(', ') || 'none'})`);
  if (metadata.ids === undefined) throw new FeatureFileError(`${path}: metadata has no "ids" entry (a JSON array of sequence ids)`);
  let ids: unknown;
  try {
    ids = JSON.parse(metadata.ids);
  } catch {
    throw new FeatureFileError(`${path}: metadata "ids" is not valid JSON`);
  }
  return check(path, ids, embeddings);
}

async function readMergedPt(path: string): Promise<FeatureRows> {
  const root = await readTorchCheckpoint(path);
  const ids = field(root, 'ids');
  const data = field(root, 'data');
  if (ids === undefined || data === undefined) {
    throw new FeatureFileError(`${path}: expected a VirNucPro merged feature file, a dict with 'ids' and 'data'`);
  }
  if (!isTensor(data)) throw new FeatureFileError(`${path}: 'data' is not a tensor`);
  return check(path, ids, data);
}

function field(root: unknown, name: string): unknown {
  if (root instanceof Map) return root.get(name);
  if (root && typeof root === 'object') return (root as Record<string, unknown>)[name];
  return undefined;
}

function isTensor(x: unknown): x is TensorData {
  return !!x && typeof x === 'object' && 'dtype' in x && 'shape' in x && 'data' in x;
}

function check(path: string, ids: unknown, t: TensorData): FeatureRows {
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
    throw new FeatureFileError(`${path}: ids must be a list of strings`);
  }
  if (t.shape.length !== 2) throw new FeatureFileError(`${path}: feature tensor has shape [${t.shape}], expected [rows, dim]`);
  const [rows, dim] = t.shape;
  if (rows !== ids.length) {
    throw new FeatureFileError(
      `${path}: ${ids.length} ids but ${rows} feature rows (a merge that lost rows misaligns ids; refusing to guess)`,
    );
  }
  if (!['float32', 'float16', 'bfloat16', 'float64'].includes(t.dtype)) {
    throw new FeatureFileError(`${path}: feature tensor has dtype ${t.dtype}, expected float`);
  }
  return { ids: ids as string[], data: toFloat32(t), dim };
}
