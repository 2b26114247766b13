export { esmTokens, tokenToId, clsId, padId, eosId, unkId, maskId } from './alphabet.js';
export { tokenizeProtein, proteinTokenCount, UnknownResidueError, type UnknownPolicy, type TokenizeOptions } from './tokenizer.js';
export { type Esm2Config, esm2Architectures, esm2Defaults, headDim, configFromHuggingFace, configFromFairEsm, validateConfig } from './esm2-config.js';
export { canonicalEsm2Name, requiredEsm2Names, type CanonicalName } from './checkpoint-names.js';
export { esmInvFreq, rotaryTables } from './rotary.js';
export { createEsm2Weights, disposeEsm2Weights, checkEsm2StateDict, type Esm2Weights, type Esm2LayerWeights } from './esm2-weights.js';
export { Esm2Model } from './esm2-model.js';
export { loadEsm2Checkpoint, canonicalize, inferConfig, type Esm2Checkpoint } from './load-checkpoint.js';
export { createEsm2Embedder, embedderFactory, type Esm2EmbedderOptions, type Esm2Embedder } from './esm2-embedder.js';
