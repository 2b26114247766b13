export { BpeTokenizer } from './bpe-tokenizer.js';
export { parseTokenizerJson, type BpeTokenizerSpec } from './tokenizer-json.js';
