import { existsSync, statSync } from 'node:fs';
import type { Argv } from 'yargs';
import { checkPrecisionOption, precisionChoices, type BackendChoice, type Precision } from '@virnucpro/compute';
import { BACKENDS } from '../config/predict-options.js';
import { BACKEND_HELP, PRECISION_DEFAULT, PRECISION_HELP, TOKEN_BUDGET_DEFAULT } from '../config/shared-option-help.js';
import { UsageError, asUsage } from '../errors.js';
import { openInputFile, renameInputInError } from '../fs/input-source.js';

/** What differs between the `embed <model>` commands' options: the words, not the options. */
export interface EmbedOptionTexts {
  model: string;
  input: string;
  output: string;
  tokenBudget: string;
}

/** The options every `embed <model>` command takes (same contract for every model). */
export function withEmbedOptions<T>(y: Argv<T>, texts: EmbedOptionTexts) {
  return y
    .option('model', { type: 'string', demandOption: true, describe: texts.model })
    .option('input', { type: 'string', demandOption: true, describe: texts.input })
    .option('output', { alias: 'o', type: 'string', demandOption: true, describe: texts.output })
    .option('backend', { type: 'string', choices: BACKENDS, default: 'auto', describe: BACKEND_HELP })
    .option('precision', { type: 'string', choices: precisionChoices, defaultDescription: PRECISION_DEFAULT, describe: PRECISION_HELP })
    .option('threads', { type: 'number', defaultDescription: 'every core', describe: 'CPU threads of the model (onednn backend)' })
    .option('token-budget', { type: 'number', defaultDescription: TOKEN_BUDGET_DEFAULT, describe: texts.tokenBudget })
    .option('window', { type: 'number', defaultDescription: '1024, or token budget / 16 if larger', describe: 'records the packer may hold back to fill batches' })
    .option('truncate', { type: 'number', defaultDescription: 'whole records', describe: 'embed only the first N characters of longer records' })
    .option('summary', { type: 'string', describe: 'write a JSON run summary (throughput, packing efficiency) to this file' })
    .option('force', { alias: 'f', type: 'boolean', default: false, describe: 'overwrite --output if it exists' })
    .option('quiet', { alias: 'q', type: 'boolean', describe: 'no log lines' });
}

export interface EmbedArgs {
  input: string;
  model: string;
  output: string;
  backend: BackendChoice;
  /** As asked for; undefined = the backend's default (fp16 on cuda, fp32 elsewhere). */
  precision?: Precision;
  /** --threads; undefined: every core. */
  threads?: number;
  /** As asked for; undefined = the compute plan's default for the backend (the one place that knows the device). */
  tokenBudget?: number;
  /** As asked for; undefined = packWindowFor(the token budget). */
  window?: number;
  /** Embed only the first `truncate` characters of each record. */
  truncate?: number;
  summaryPath?: string;
  log?: (line: string) => void;
}

/** Reads and checks the shared options; bad values are usage errors (exit 2) before any model loads. */
export function readEmbedArgs(args: Record<string, unknown>): EmbedArgs {
  const input = args.input as string;
  const tokenBudget = args['token-budget'] as number | undefined;
  const window = args.window as number | undefined;
  const backend = args.backend as BackendChoice;
  const precision = args.precision as Precision | undefined;
  const threads = args.threads as number | undefined;
  asUsage(() => checkPrecisionOption(backend, precision));
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 1)) throw new UsageError(`--threads must be a whole number ≥ 1, got ${threads}`);
  if (!existsSync(input)) throw new UsageError(`${input}: input FASTA not found`);
  if (statSync(input).isDirectory()) throw new UsageError(`${input}: is a folder, not a FASTA file`);
  // The overwrite rule of every command: existing results stay unless --force.
  if (existsSync(args.output as string) && !args.force) throw new UsageError(`--output ${String(args.output)} already exists; pass --force to overwrite it`);
  if (tokenBudget !== undefined && (!Number.isInteger(tokenBudget) || tokenBudget < 3)) throw new UsageError(`--token-budget must be an integer ≥ 3, got ${tokenBudget}`);
  if (window !== undefined && (!Number.isInteger(window) || window < 1)) throw new UsageError(`--window must be a positive integer, got ${window}`);
  const truncate = args.truncate as number | undefined;
  if (truncate !== undefined && (!Number.isInteger(truncate) || truncate < 1)) throw new UsageError(`--truncate must be a positive integer, got ${truncate}`);
  return {
    input,
    model: args.model as string,
    output: args.output as string,
    backend,
    ...(precision ? { precision } : {}),
    ...(threads !== undefined ? { threads } : {}),
    ...(tokenBudget !== undefined ? { tokenBudget } : {}),
    ...(window !== undefined ? { window } : {}),
    ...(truncate ? { truncate } : {}),
    summaryPath: args.summary as string | undefined,
    log: args.quiet ? undefined : (line: string) => console.error(line),
  };
}

/**
 * Runs `body` with `run.input` as a regular file: standard input (`--input -`) or a pipe is first copied to a
 * temporary file (removed afterwards); messages name the input as the user did.
 */
export async function withInputFile<T>(run: EmbedArgs, body: (run: EmbedArgs) => Promise<T>): Promise<T> {
  const file = await openInputFile(run.input);
  try {
    return await body({ ...run, input: file.path });
  } catch (err) {
    throw renameInputInError(err, file);
  } finally {
    await file.dispose();
  }
}
