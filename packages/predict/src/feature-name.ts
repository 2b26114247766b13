/**
 * The VirNucPro feature, by name: the feature model's Embedder name and the checkpoint's model identity.
 * Its own module, so the parent process can name it without loading the models' code.
 */
export const FEATURES_MODEL_NAME = 'virnucpro [dnabert-s mean | esm-2 mean]';
