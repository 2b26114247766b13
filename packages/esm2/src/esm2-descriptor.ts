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
      describe: 'characters outside the ESM alphabet: fail (fair-esm) or map each run to <unk> (Hugging Face)',
    },
  },
  checkPath: (path) => (existsSync(path) ? undefined : `${path}: model not found (a checkpoint folder or file)`),
  load: (path, options = {}) =>
    loadEsm2Embedder(path, { precision: options.precision, unknown: options.settings?.unknown as UnknownPolicy | undefined }),
  title: (embedder) => `ESM-2 ${embedder.name}`,
  convert: convertEsm2,
  help: {
    embed: {
      describe: 'Mean ESM-2 embeddings of protein FASTA records (VirNucPro protein features)',
      model: 'ESM-2 checkpoint: HF folder, fair-esm .pt, .safetensors/.bin file, or a converted tfjs folder',
      input: 'protein FASTA (plain or gzip; - for standard input)',
      output: 'output .safetensors: float32 "embeddings" [N, dim], ids in __metadata__',
      tokenBudget: 'tokens per packed batch (residues + BOS/EOS); VirNucPro used 2048',
      example: '$0 embed esm2 --model esm2_t36_3B_UR50D --input proteins.faa --output esm.safetensors',
    },
    convert: {
      describe: 'Convert an ESM-2 checkpoint into a tfjs weights folder (model.json + shards) that loads fast',
      src: 'ESM-2 checkpoint: Hugging Face folder, model.safetensors, pytorch_model.bin, fair-esm .pt, or a converted folder',
      epilogue: [
        'Keeps only the tensors the forward pass uses, under canonical names, with the config in model.json.',
        'DEST appears only when complete. Use it anywhere a model is asked for: `virnucpro embed esm2 --model DEST`.',
        'Exit codes: 0 ok, 1 error, 2 bad input (missing SRC, existing DEST), 130/143 interrupted.',
      ],
      example: ['$0 convert esm2 esm2_t36_3B_UR50D.pt esm2-3b', 'fair-esm .pt -> tfjs folder'],
    },
  },
};
