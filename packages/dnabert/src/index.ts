export { BpeTokenizer } from './bpe-tokenizer.js';
export { parseTokenizerJson, type BpeTokenizerSpec } from './tokenizer-json.js';
export { alibiSlopes } from './alibi-slopes.js';
export { dnabertSConfig, parseDnabertConfig, readDnabertConfig, toHfConfigJson, type DnabertConfig } from './dnabert-config.js';
export {
  canonicalDnabertNames,
  dnabertWeightsFromStateDict,
  expectedDnabertTensors,
  type DnabertLayerWeights,
  type DnabertWeights,
} from './dnabert-weights.js';
export { DnabertModel } from './dnabert-model.js';
export { loadDnabert, readDnabertStateDict, dnabertWeightFiles, type LoadedDnabert, type LoadDnabertOptions } from './load-dnabert.js';
export {
  loadDnabertEmbedder, createDnabertEmbedder, embedderFactory, type DnabertLoadOptions, type DnabertEmbedderOptions, type DnabertEmbedder,
} from './dnabert-embedder.js';
export { convertDnabert } from './convert-dnabert.js';
export { dnabertFolderProblem } from './dnabert-folder.js';
export { dnabertDescriptor } from './dnabert-descriptor.js';
export { randomDnabertWeights } from './random-dnabert-weights.js';
