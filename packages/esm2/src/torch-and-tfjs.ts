// Placeholder until @virnucpro/weights ships readTorchCheckpoint / loadStateDict / tfjs artifacts.
import type { TensorData } from '@virnucpro/weights';
import type { Esm2Config } from './esm2-config.js';

export async function readTorchEsm2(path: string): Promise<{ config?: Esm2Config; tensors: Map<string, TensorData> }> {
  throw new Error(`${path}: PyTorch checkpoints are not readable yet`);
}
export function isTfjsArtifactDir(_path: string): boolean {
  return false;
}
export async function readTfjsEsm2(path: string): Promise<{ config?: Esm2Config; tensors: Map<string, TensorData> }> {
  throw new Error(`${path}: tfjs artifacts are not readable yet`);
}
