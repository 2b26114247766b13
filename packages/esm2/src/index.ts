export { tokenizeProtein, UnknownResidueError, type UnknownPolicy, type TokenizeOptions } from './tokenizer.js';
export { type Esm2Config, esm2Architectures, esm2Defaults } from './esm2-config.js';
export { createEsm2Weights, type Esm2Weights } from './esm2-weights.js';
export { Esm2Model } from './esm2-model.js';
export { loadEsm2Checkpoint, type Esm2Checkpoint } from './load-checkpoint.js';
export { loadEsm2Embedder, createEsm2Embedder, embedderFactory, type Esm2LoadOptions, type Esm2EmbedderOptions, type Esm2Embedder } from './esm2-embedder.js';
export { convertEsm2 } from './convert-esm2.js';
export { esm2Descriptor } from './esm2-descriptor.js';
export { randomEsm2Weights } from './random-esm2-weights.js';
