import type { EmbeddingModelDescriptor } from '@virnucpro/ops';
import { convertDnabert } from './convert-dnabert.js';
import { loadDnabertEmbedder } from './dnabert-embedder.js';
import { dnabertFolderProblem } from './dnabert-folder.js';
import { dnabertWeightFiles } from './load-dnabert.js';

/** DNABERT-S as a tool offers it (`virnucpro embed dnabert`, `virnucpro convert dnabert`). */
export const dnabertDescriptor: EmbeddingModelDescriptor = {
  name: 'dnabert',
  label: 'DNABERT',
  reads: 'nucleotide',
  checkPath: dnabertFolderProblem,
  load: (path, options) => loadDnabertEmbedder(path, options?.precision ? { precision: options.precision } : {}),
  title: (embedder) => embedder.name,
  convert: convertDnabert,
  help: {
    embed: {
      describe: 'Mean DNABERT-S embeddings of nucleotide FASTA records (VirNucPro nucleotide features)',
      model: 'DNABERT-S / DNABERT-2 folder (config.json, tokenizer.json, weights) or a converted tfjs folder',
      input: 'nucleotide FASTA (plain or gzip; - for standard input)',
      output: 'output .safetensors: float32 "embeddings" [N, hidden], ids in __metadata__',
      tokenBudget: 'tokens per packed batch (BPE tokens + [CLS]/[SEP])',
      epilogue: 'Each vector is the mean of the last hidden state over all tokens, [CLS] and [SEP] included, as VirNucPro computes it.',
      example: '$0 embed dnabert --model DNABERT-S --input chunks_identified_nucleotide.fa --output dna.safetensors',
    },
    convert: {
      describe: 'Convert a DNABERT-S / DNABERT-2 model folder into a tfjs weights folder (model.json + shards) that loads fast',
      src: `model folder: config.json, tokenizer.json and weights (first found of ${dnabertWeightFiles.join(', ')})`,
      epilogue: [
        'Keeps the encoder tensors under canonical names (pooler and MLM head dropped) and writes config.json',
        'and the unchanged tokenizer.json beside model.json, so DEST is itself a model folder:',
        '`virnucpro embed dnabert --model DEST`. DEST appears only when complete.',
        'Exit codes: 0 ok, 1 error, 2 bad input (missing SRC or part of it, existing DEST), 130/143 interrupted.',
      ],
      example: ['$0 convert dnabert DNABERT-S models/dnabert-s', 'Hugging Face folder -> tfjs folder'],
    },
  },
};
