// @virnucpro/mlp — VirNucPro's MLP classifier (3,328 features → 512 → BatchNorm → ReLU → 2 probabilities): loaded from
// the original `.pth` or safetensors, run on this thread or on worker threads (the same bytes), and the feature
// files it reads.
export { MlpClassifier, type MlpShapes } from './mlp-classifier.js';
export { ThreadedMlp, MlpThreadError, type ThreadedMlpOptions } from './threaded-mlp.js';
export { loadMlp } from './load-mlp.js';
export { readFeatures, FeatureFileError, type FeatureRows } from './read-features.js';
