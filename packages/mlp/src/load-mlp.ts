// Loads VirNucPro's MLP from the original whole-module `.pth` (a pickled `__main__.MLPClassifier`; only its
// tensors are read, nothing in the pickle is executed) or from a safetensors file with the same
// state-dict names.

import { loadStateDict } from '@virnucpro/weights';
import { MlpClassifier } from './mlp-classifier.js';

export async function loadMlp(path: string): Promise<MlpClassifier> {
  return MlpClassifier.fromStateDict(await loadStateDict(path), path);
}
