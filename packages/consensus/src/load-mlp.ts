// Loads VirNucPro's MLP from the original whole-module `.pth` (a pickled `__main__.MLPClassifier`; only its
// tensors are read, nothing is executed) or from a safetensors file with the same state-dict names.

import { readSafetensors } from '@virnucpro/weights';
import { MlpClassifier } from './mlp-classifier.js';
import { loadTorchStateDict } from './torch-files.js';

export async function loadMlp(path: string): Promise<MlpClassifier> {
  const tensors = path.endsWith('.safetensors') ? (await readSafetensors(path)).tensors : await loadTorchStateDict(path);
  return MlpClassifier.fromStateDict(tensors, path);
}
