// The two non-safetensors layouts: PyTorch pickles (HF pytorch_model.bin, fair-esm .pt) and the
// tfjs artifact folder that `virnucpro convert esm2` writes.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PyObject, readTfjsArtifact, readTorchCheckpoint, stateDictOf, writeTfjsArtifact, type TensorData } from '@virnucpro/weights';
import { configFromFairEsm, validateConfig, type Esm2Config } from './esm2-config.js';

/** The `userDefinedMetadata.format` of a converted ESM-2 artifact. */
export const esm2ArtifactFormat = 'virnucpro-esm2';

/** Tensors of a torch checkpoint, and the config fair-esm stores beside them (`cfg['model']`, or ESM-1's `args`). */
export async function readTorchEsm2(path: string): Promise<{ config?: Esm2Config; tensors: Map<string, TensorData> }> {
  const root = await readTorchCheckpoint(path);
  const tensors = stateDictOf(root, path);
  const dict = root && typeof root === 'object' && !(root instanceof PyObject) ? (root as Record<string, unknown>) : undefined;
  const cfg = dict?.cfg as Record<string, unknown> | undefined;
  const namespace = (cfg && typeof cfg === 'object' ? cfg.model : undefined) ?? dict?.args;
  const attributes = namespace instanceof PyObject ? namespace.dict : namespace && typeof namespace === 'object' ? (namespace as Record<string, unknown>) : undefined;
  if (!attributes) return { tensors };
  const config = configFromFairEsm(attributes, path);
  config.name = fairEsmName(path);
  return { config, tensors };
}

function fairEsmName(path: string): string {
  const file = path.split(/[\\/]/).pop() ?? path;
  return file.replace(/\.(pt|pth|bin)$/i, '');
}

export function isTfjsArtifactDir(dir: string): boolean {
  return existsSync(join(dir, 'model.json'));
}

/** Reads a converted artifact: canonical tensor names plus the config in its metadata. */
export async function readTfjsEsm2(dir: string): Promise<{ config?: Esm2Config; tensors: Map<string, TensorData> }> {
  const { tensors, metadata } = await readTfjsArtifact(dir);
  if (metadata.format !== esm2ArtifactFormat) {
    throw new Error(`${join(dir, 'model.json')}: not an ESM-2 artifact written by virnucpro convert esm2 (metadata.format is ${JSON.stringify(metadata.format)})`);
  }
  const config = validateConfig(metadata.config as Esm2Config, join(dir, 'model.json'));
  return { config, tensors };
}

/** Writes canonical ESM-2 tensors + config as a tfjs weights artifact (atomic folder replace). */
export async function writeEsm2Artifact(dir: string, config: Esm2Config, tensors: Map<string, TensorData>): Promise<void> {
  await writeTfjsArtifact(dir, tensors, { format: esm2ArtifactFormat, config });
}
