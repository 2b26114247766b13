import { existsSync } from 'node:fs';
import type { EmbeddingModelDescriptor } from '@virnucpro/ops';
import { convertEsm2 } from './convert-esm2.js';
import { loadEsm2Embedder } from './esm2-embedder.js';
import type { UnknownPolicy } from './tokenizer.js';

/** ESM-2 as a tool offers it (`virnucpro embed esm2`, `virnucpro convert esm2`). */
export const esm2Descriptor: EmbeddingModelDescriptor = {
  name: 'esm2',
  label: 'ESM-2',
  reads: 'protein',
  settings: {
    unknown: {
      choices: ['error', 'unk'],
      default: 'error',
      describe: 'characters outside the ESM alphabet: error (as fair-esm) or <unk> (as Hugging Face)',
    },
  },
  checkPath: (path) => (existsSync(path) ? undefined : `${path}: model not found (a checkpoint folder or file)`),
  load: (path, options = {}) =>
    loadEsm2Embedder(path, { precision: options.precision, unknown: options.settings?.unknown as UnknownPolicy | undefined }),
  title: (embedder) => `ESM-2 ${embedder.name}`,
  convert: convertEsm2,
};
