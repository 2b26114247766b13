// The single table of `virnucpro predict` options. yargs flags, YAML config keys, validation and the
// commented default config (`virnucpro config init`) are all generated from it, so they cannot drift.
import { backendNames, precisionChoices, type BackendChoice, type Precision } from '@virnucpro/compute';
import type { ShardSpec } from '../sharding/shard-spec.js';

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
  /** Not allowed in a config file (makes sense on the command line only). */
  cliOnly?: boolean;
}

export const PREDICT_OPTIONS: readonly OptionSpec[] = [
  { key: 'input', kind: 'path', description: 'input DNA FASTA file (plain or .gz; - for standard input); may be given as the positional argument instead' },
  { key: 'out-dir', kind: 'path', description: 'output folder (created; refused if it holds results unless --force or --resume)' },
  { key: 'model-type', kind: 'choice', choices: [300, 500], default: 500, description: 'which VirNucPro MLP to use; also sets --length and picks model files from --models-dir' },
  { key: 'length', kind: 'choice', choices: [300, 500], description: 'chunk length in bp (default: the --model-type)' },
  { key: 'models-dir', kind: 'path', description: 'folder filled by `virnucpro models download` (default: $VIRNUCPRO_MODELS_DIR or ~/.cache/virnucpro)' },
  { key: 'esm', kind: 'path', description: 'ESM-2 model folder or file (default: the ESM-2 model in --models-dir)' },
  { key: 'dnabert', kind: 'path', description: 'DNABERT-S model folder with tokenizer.json (default: DNABERT-S in --models-dir)' },
  { key: 'mlp', kind: 'path', description: 'VirNucPro MLP (.pth or .safetensors; default: <model-type>_model.pth in --models-dir)' },
  { key: 'backend', kind: 'choice', choices: BACKENDS, default: 'auto', description: 'compute backend for the embedding models' },
  { key: 'precision', kind: 'choice', choices: precisionChoices, description: 'float precision of the models: fp16, bf16 or fp8 only with the cuda backend (default: fp16 on cuda, fp32 on every other backend); fp8 = FP8 linear layers on sm_89+, experimental: ~1.5× bf16 and ~1.9× compiled PyTorch fp16 on ESM-2 3B on an H100 (static scales from the weights, fast FP8 sums as TransformerEngine runs inference, biases corrected for the weight rounding on a fixed calibration set, the first ~1/9 of the blocks of each model in bf16) but less accurate (mean-embedding cosine to fp32 ≥ 0.999 vs bf16 ≥ 0.9999); predict embeds the frames scored near 0.5 again in bf16 (--refine-margin), so labels change as in bf16 (full-size random models against fp32: 0.03 % of frames at 300 bp, 0.07 % at 500 bp; 0.69 % without), see docs/usage.md' },
  { key: 'refine-margin', kind: 'number', min: 0, max: 0.5, default: 0.04, description: 'with --precision fp8: frames whose virus score lies within this of 0.5 are embedded again in bf16 and classified from that (fp8 moved scores by up to 0.036 with full-size random models, so labels then change as bf16 changes them; the share refined is in run_summary.json); 0 = never' },
  { key: 'devices', kind: 'list', description: 'GPU ids to use, e.g. "0,1" (one worker process per device)' },
  { key: 'workers', kind: 'integer', min: 0, default: 0, description: 'CPU worker processes when no --devices are given (0 = a worker thread of this process)' },
  { key: 'threads', kind: 'integer', min: 1, description: 'CPU threads for the models on the onednn backend (its GEMMs and every kernel between them) and for the MLP [default: every core]' },
  { key: 'token-budget', kind: 'integer', min: 16, description: 'ESM-2 tokens per packed batch (residues + BOS + EOS); default 16384 when the models run on cuda, 4096 elsewhere' },
  { key: 'pack-window', kind: 'integer', min: 1, description: 'frames looked at together when packing batches (first-fit decreasing; an under-filled batch waits for the next window) [default: 2000, or token budget / 16 if larger]' },
  { key: 'checkpoint-every', kind: 'integer', min: 1, default: 10000, description: 'write a checkpoint shard every N embedded frames' },
  { key: 'checkpoint-seconds', kind: 'integer', min: 0, default: 300, description: 'also write a shard when finished frames have waited this long (0 = only --checkpoint-every)' },
  { key: 'resume', kind: 'boolean', default: false, description: 'continue an interrupted run in --out-dir from its checkpoints' },
  { key: 'force', kind: 'boolean', default: false, description: 'overwrite results already in --out-dir' },
  { key: 'min-length', kind: 'integer', min: 1, description: 'skip records shorter than this many bases (counted, and called `skipped` in sequence_summary.tsv) [default: none, as the original]' },
  { key: 'allow-non-dna', kind: 'boolean', default: false, description: 'run on records that are not DNA (more than 10% of their characters outside ACGTUN and the IUPAC codes) instead of refusing them' },
  { key: 'region-gap', kind: 'integer', min: 0, default: 1, description: 'viral regions: non-viral chunks allowed between two joined viral chunks (unscored chunks do not count)' },
  { key: 'region-max-gap', kind: 'integer', min: 0, default: 5000, description: 'viral regions: bases allowed between two joined viral chunks' },
  { key: 'min-region-chunks', kind: 'integer', min: 1, default: 2, description: 'viral regions: viral chunks a region needs to be kept (1 for a record cut into one chunk)' },
  { key: 'keep-intermediate', kind: 'boolean', default: false, description: 'also write the chunked, nucleotide and protein FASTA files' },
  { key: 'shard', kind: 'string', cliOnly: true, description: 'run only part K of N of the input records, e.g. 2/8 (balanced by bases); join the parts with `virnucpro merge`' },
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
