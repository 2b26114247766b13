// The single table of `virnucpro predict` options. yargs flags, YAML config keys, validation and the
// commented default config (`virnucpro config init`) are all generated from it, so they cannot drift.
import { backendNames, precisionChoices, type BackendChoice, type Precision } from '@virnucpro/compute';
import type { ShardSpec } from '../sharding/shard-spec.js';
import { BACKEND_HELP, INPUT_KINDS, PRECISION_DEFAULT, PRECISION_HELP, TOKEN_BUDGET_DEFAULT } from './shared-option-help.js';

/** `--backend` values: the backend names and `auto` (@virnucpro/compute). */
export const BACKENDS: readonly BackendChoice[] = ['auto', ...backendNames];
export type { BackendChoice };

export type OptionKind = 'string' | 'path' | 'integer' | 'number' | 'boolean' | 'choice' | 'list';

export interface OptionSpec {
  /** Flag and YAML key (kebab-case). */
  key: string;
  kind: OptionKind;
  description: string;
  choices?: readonly (string | number)[];
  /** Smallest allowed value for integers and numbers. */
  min?: number;
  /** Largest allowed value for numbers. */
  max?: number;
  /** Default value (undefined = no default; resolved later, e.g. from --model-type). */
  default?: string | number | boolean | string[];
  /** The default in words, where `default` is undefined because it is resolved later (shown by --help). */
  defaultText?: string;
  /** Not allowed in a config file (makes sense on the command line only). */
  cliOnly?: boolean;
}

export const PREDICT_OPTIONS: readonly OptionSpec[] = [
  { key: 'input', kind: 'path', description: `${INPUT_KINDS}; or give it as the positional argument` },
  { key: 'out-dir', kind: 'path', description: 'output folder (empty, unless --resume or --force)' },
  { key: 'model-type', kind: 'choice', choices: [300, 500], default: 500, description: 'which VirNucPro MLP to use; also sets --length' },
  { key: 'length', kind: 'choice', choices: [300, 500], defaultText: 'the --model-type', description: 'chunk length in bp' },
  { key: 'models-dir', kind: 'path', defaultText: '$VIRNUCPRO_MODELS_DIR or ~/.cache/virnucpro', description: 'folder filled by `virnucpro models download`' },
  { key: 'esm', kind: 'path', defaultText: 'the one in --models-dir', description: 'ESM-2 model folder or file' },
  { key: 'dnabert', kind: 'path', defaultText: 'the one in --models-dir', description: 'DNABERT-S model folder with tokenizer.json' },
  { key: 'mlp', kind: 'path', defaultText: '<model-type>_model.pth in --models-dir', description: 'VirNucPro MLP file (.pth or .safetensors)' },
  { key: 'backend', kind: 'choice', choices: BACKENDS, default: 'auto', description: BACKEND_HELP },
  { key: 'precision', kind: 'choice', choices: precisionChoices, defaultText: PRECISION_DEFAULT, description: PRECISION_HELP },
  { key: 'refine-margin', kind: 'number', min: 0, max: 0.5, default: 0.04, description: 'fp8: frames scored within this of 0.5 are embedded again in bf16 (0 = never)' },
  { key: 'devices', kind: 'list', description: 'GPU ids to use, e.g. "0,1" (one worker process per device)' },
  { key: 'workers', kind: 'integer', min: 0, default: 0, description: 'CPU worker processes without --devices (0 = a thread of this process)' },
  { key: 'threads', kind: 'integer', min: 1, defaultText: 'every core', description: 'CPU threads of the models (onednn backend) and of the MLP' },
  { key: 'token-budget', kind: 'integer', min: 16, defaultText: TOKEN_BUDGET_DEFAULT, description: 'ESM-2 tokens per packed batch (residues + BOS + EOS)' },
  { key: 'pack-window', kind: 'integer', min: 1, defaultText: '2000, or token budget / 16 if larger', description: 'frames looked at together when packing batches' },
  { key: 'checkpoint-every', kind: 'integer', min: 1, default: 10000, description: 'write a checkpoint shard every N embedded frames' },
  { key: 'checkpoint-seconds', kind: 'integer', min: 0, default: 300, description: 'also write one when finished frames waited this long (0 = never)' },
  { key: 'resume', kind: 'boolean', default: false, description: 'continue an interrupted run in --out-dir from its checkpoints' },
  { key: 'force', kind: 'boolean', default: false, description: 'discard the results and kept work already in --out-dir' },
  { key: 'min-length', kind: 'integer', min: 1, defaultText: 'none, as the original', description: 'skip records shorter than this many bases (counted as skipped)' },
  { key: 'allow-non-dna', kind: 'boolean', default: false, description: 'run on records that are not DNA (> 10% non-nucleotide codes) instead of refusing' },
  { key: 'region-gap', kind: 'integer', min: 0, default: 1, description: 'viral regions: non-viral chunks allowed between two joined viral chunks' },
  { key: 'region-max-gap', kind: 'integer', min: 0, default: 5000, description: 'viral regions: bases allowed between two joined viral chunks' },
  { key: 'min-region-chunks', kind: 'integer', min: 1, default: 2, description: 'viral regions: viral chunks a region needs to be kept' },
  { key: 'keep-intermediate', kind: 'boolean', default: false, description: 'also write the chunked, nucleotide and protein FASTA files' },
  { key: 'save-embeddings', kind: 'boolean', default: false, description: "also write each frame's DNABERT-S + ESM-2 features to --out-dir/embeddings/" },
  { key: 'embeddings-dtype', kind: 'choice', choices: ['fp32', 'fp16'], defaultText: 'fp32', description: "fp16 halves --save-embeddings' size; classify's scores are then approximate" },
  { key: 'shard', kind: 'string', cliOnly: true, description: 'run only part K of N of the records, e.g. 2/8; join them with `virnucpro merge`' },
  { key: 'quiet', kind: 'boolean', default: false, description: 'no progress output (errors still go to stderr)' },
  { key: 'config', kind: 'path', cliOnly: true, description: 'YAML file with any of these options (command-line flags win)' },
];

/** Fully resolved predict options (after defaults, config file and flags). */
export interface PredictOptions {
  input: string;
  outDir: string;
  modelType: 300 | 500;
  length: 300 | 500;
  modelsDir: string;
  esm?: string;
  dnabert?: string;
  mlp?: string;
  backend: BackendChoice;
  /** As asked for (undefined: the backend's default, fp16 on cuda and fp32 elsewhere). */
  precision?: Precision;
  devices: string[];
  workers: number;
  /** --threads: CPU threads of the models (onednn) and the MLP; undefined: every core. */
  threads?: number;
  /** As given; undefined: the backend's default (@virnucpro/compute's planCompute). */
  tokenBudget?: number;
  /** Undefined: 2000, or more at large token budgets (packWindowFor). */
  packWindow?: number;
  /** --refine-margin: fp8 frames scored within it of 0.5 are embedded again in bf16 (0: never). */
  refineMargin: number;
  checkpointEvery: number;
  checkpointSeconds: number;
  resume: boolean;
  force: boolean;
  keepIntermediate: boolean;
  /** --save-embeddings: every scored frame's features to `--out-dir/embeddings/`. */
  saveEmbeddings: boolean;
  /** --embeddings-dtype (undefined: fp32); only with --save-embeddings. */
  embeddingsDtype?: 'fp32' | 'fp16';
  regionGap: number;
  regionMaxGap: number;
  minRegionChunks: number;
  allowNonDna: boolean;
  /** --min-length: records shorter than it are skipped; undefined = none. */
  minLength?: number;
  quiet: boolean;
  /** --shard K/N (parsed). */
  shard?: ShardSpec;
  config?: string;
}

export function camelCase(key: string): string {
  return key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
