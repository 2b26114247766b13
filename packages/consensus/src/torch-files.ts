// The two PyTorch-pickle entry points of @virnucpro/weights this package needs. Looked up on the module
// namespace so this package builds while the pickle reader is still landing; once it is exported these
// are plain calls (and an absent export is reported as such, not as a crash).

import * as weights from '@virnucpro/weights';
import type { TensorData } from '@virnucpro/weights';

type LoadStateDict = (path: string) => Promise<Map<string, TensorData>>;
type ReadTorchCheckpoint = (path: string) => Promise<unknown>;

function need<T>(name: string): T {
  const fn = (weights as Record<string, unknown>)[name];
  if (typeof fn !== 'function') throw new Error(`@virnucpro/weights does not export ${name}() (needed to read PyTorch pickle files)`);
  return fn as T;
}

export function loadTorchStateDict(path: string): Promise<Map<string, TensorData>> {
  return need<LoadStateDict>('loadStateDict')(path);
}

export function readTorchFile(path: string): Promise<unknown> {
  return need<ReadTorchCheckpoint>('readTorchCheckpoint')(path);
}
