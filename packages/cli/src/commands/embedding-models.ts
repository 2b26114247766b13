import { dnabertDescriptor, dnabertWeightFiles } from '@virnucpro/dnabert';
import { esm2Descriptor } from '@virnucpro/esm2';
import type { EmbeddingModelDescriptor } from '@virnucpro/ops';
import { FIGURES_POINTER, INPUT_KINDS } from '../config/shared-option-help.js';

/** The words the command line shows for a model: help texts and one example each. */
export interface EmbeddingModelHelp {
  embed: {
    describe: string;
    model: string;
    input: string;
    output: string;
    tokenBudget: string;
    epilogue?: string;
    example: string;
  };
  convert: {
    describe: string;
    src: string;
    epilogue: string[];
    example: [command: string, description: string];
  };
}

/** A model package's descriptor with the CLI's words for it. */
export type OfferedModel = EmbeddingModelDescriptor & { readonly help: EmbeddingModelHelp };

const esm2Help: EmbeddingModelHelp = {
  embed: {
    describe: 'Mean ESM-2 embeddings of protein FASTA records (VirNucPro protein features)',
    model: 'ESM-2 model: Hugging Face folder, .pt / .safetensors / .bin file or converted folder',
    input: 'protein FASTA (plain or gzip; - for standard input)',
    output: 'output .safetensors: float32 "embeddings" [N, dim], ids in __metadata__',
    tokenBudget: 'tokens per packed batch (residues + BOS/EOS; VirNucPro used 2048)',
    epilogue: FIGURES_POINTER,
    example: '$0 embed esm2 --model esm2_t36_3B_UR50D --input proteins.faa --output esm.safetensors',
  },
  convert: {
    describe: 'Convert an ESM-2 checkpoint into a tfjs weights folder (model.json + shards) that loads fast',
    src: 'ESM-2 checkpoint: a Hugging Face folder, .safetensors, .bin, fair-esm .pt or a converted folder',
    epilogue: [
      'Keeps only the tensors the forward pass uses, under canonical names, with the config in model.json.',
      'DEST appears only when complete. Use it anywhere a model is asked for: `virnucpro embed esm2 --model DEST`.',
      'Exit codes: 0 ok, 1 error, 2 bad input (missing SRC, existing DEST), 130/143 interrupted.',
    ],
    example: ['$0 convert esm2 esm2_t36_3B_UR50D.pt esm2-3b', 'fair-esm .pt -> tfjs folder'],
  },
};

const dnabertHelp: EmbeddingModelHelp = {
  embed: {
    describe: 'Mean DNABERT-S embeddings of nucleotide FASTA records (VirNucPro nucleotide features)',
    model: 'DNABERT-S / DNABERT-2 folder (config.json, tokenizer.json, weights) or a converted one',
    input: INPUT_KINDS,
    output: 'output .safetensors: float32 "embeddings" [N, hidden], ids in __metadata__',
    tokenBudget: 'tokens per packed batch (BPE tokens + [CLS]/[SEP])',
    epilogue: `Each vector is the mean of the last hidden state over all tokens, [CLS] and [SEP] included, as VirNucPro computes it.\n${FIGURES_POINTER}`,
    example: '$0 embed dnabert --model DNABERT-S --input chunks_identified_nucleotide.fa --output dna.safetensors',
  },
  convert: {
    describe: 'Convert a DNABERT-S / DNABERT-2 model folder into a tfjs weights folder (model.json + shards) that loads fast',
    src: 'model folder: config.json, tokenizer.json and weights',
    epilogue: [
      `SRC's weights: the first found of ${dnabertWeightFiles.join(', ')}.`,
      'Keeps the encoder tensors under canonical names (pooler and MLM head dropped) and writes config.json',
      'and the unchanged tokenizer.json beside model.json, so DEST is itself a model folder:',
      '`virnucpro embed dnabert --model DEST`. DEST appears only when complete.',
      'Exit codes: 0 ok, 1 error, 2 bad input (missing SRC or part of it, existing DEST), 130/143 interrupted.',
    ],
    example: ['$0 convert dnabert DNABERT-S models/dnabert-s', 'Hugging Face folder -> tfjs folder'],
  },
};

/** The models `embed <model>` and `convert <model>` offer, in help order: one line per model package. */
export const embeddingModels: readonly OfferedModel[] = [
  { ...esm2Descriptor, help: esm2Help },
  { ...dnabertDescriptor, help: dnabertHelp },
];

/** "esm2 or dnabert", for the message that asks for a model. */
export const embeddingModelNames = embeddingModels.map((m) => m.name).join(' or ');
