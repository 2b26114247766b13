import type { EmbeddingModelDescriptor } from '@virnucpro/ops';
import { convertDnabert } from './convert-dnabert.js';
import { loadDnabertEmbedder, startDnabertEncoder } from './dnabert-embedder.js';
import { dnabertFolderProblem } from './dnabert-folder.js';

/** DNABERT-S as a tool offers it (`virnucpro embed dnabert`, `virnucpro convert dnabert`). */
export const dnabertDescriptor: EmbeddingModelDescriptor = {
  name: 'dnabert',
  label: 'DNABERT',
  reads: 'nucleotide',
  checkPath: dnabertFolderProblem,
  load: (path, options) => loadDnabertEmbedder(path, options?.precision ? { precision: options.precision } : {}),
  startEncoder: startDnabertEncoder,
  title: (embedder) => embedder.name,
  convert: convertDnabert,
};
