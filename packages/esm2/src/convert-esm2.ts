import { existsSync } from 'node:fs';
import type { ConvertedModel } from '@virnucpro/ops';
import { elementCount } from '@virnucpro/weights';
import { loadEsm2Checkpoint } from './load-checkpoint.js';
import { writeEsm2Artifact } from './torch-and-tfjs.js';

/**
 * Converts an ESM-2 checkpoint (any layout loadEsm2Checkpoint reads) into a tfjs weights artifact folder
 * at `dest`: only the tensors the forward pass uses, under canonical names, the config in model.json.
 * Written beside `dest` and renamed into place, so a failure leaves nothing at `dest`.
 */
export async function convertEsm2(src: string, dest: string): Promise<ConvertedModel> {
  if (existsSync(dest)) throw new Error(`${dest}: already exists; choose a new output directory`);
  const { config, tensors, source } = await loadEsm2Checkpoint(src);
  await writeEsm2Artifact(dest, config, tensors);
  let parameters = 0;
  for (const t of tensors.values()) parameters += elementCount(t.shape);
  return { dest, source, tensors: tensors.size, parameters };
}
