export { BpeTokenizer } from './bpe-tokenizer.js';
export { BpePool, BpeRefusal, bpePoolThreads, type BpePoolOptions } from './bpe-pool.js';
export { alibiSlopes } from './alibi-slopes.js';
export { dnabertSConfig, type DnabertConfig } from './dnabert-config.js';
export { DnabertModel } from './dnabert-model.js';
export { calibrateDnabert } from './calibrate-dnabert.js';
export { loadDnabert, dnabertWeightFiles, type LoadedDnabert, type LoadDnabertOptions } from './load-dnabert.js';
export {
  loadDnabertEmbedder,
  createDnabertEmbedder,
  embedderFactory,
  type DnabertLoadOptions,
  type DnabertEmbedderOptions,
  type DnabertEmbedder,
} from './dnabert-embedder.js';
export { convertDnabert } from './convert-dnabert.js';
export { dnabertDescriptor } from './dnabert-descriptor.js';
export { randomDnabertWeights } from './random-dnabert-weights.js';
