import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkPrecisionOption } from '@virnucpro/compute';
import { UsageError, asUsage } from '../errors.js';
import { coerceOption } from './coerce-option.js';
import { loadConfigFile } from './load-config-file.js';
import { PREDICT_OPTIONS, camelCase, type PredictOptions } from './predict-options.js';
import { parseShardSpec } from '../sharding/shard-spec.js';

/** Where `virnucpro models download` puts models unless told otherwise. */
export function defaultModelsDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.VIRNUCPRO_MODELS_DIR ? resolve(env.VIRNUCPRO_MODELS_DIR) : join(homedir(), '.cache', 'virnucpro');
}

/**
 * Merges built-in defaults < config file (--config) < command-line flags into checked PredictOptions.
 * `flags` holds only options the user actually typed (kebab-case keys), so a flag's absence never hides a
 * config value.
 */
export function resolvePredictOptions(flags: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): PredictOptions {
  const values = new Map<string, unknown>();
  for (const spec of PREDICT_OPTIONS) if (spec.default !== undefined) values.set(spec.key, spec.default);

  const configPath = flags.config === undefined ? undefined : (coerceOption(PREDICT_OPTIONS.find((s) => s.key === 'config')!, flags.config, '--config') as string);
  if (configPath) for (const [key, { value }] of loadConfigFile(configPath)) values.set(key, value);

  for (const spec of PREDICT_OPTIONS) {
    const raw = flags[spec.key];
    if (raw === undefined) continue;
    let value = coerceOption(spec, raw, `--${spec.key}`);
    if (spec.kind === 'path') value = resolve(value as string);
    values.set(spec.key, value);
  }

  const out: Record<string, unknown> = {};
  for (const [key, value] of values) out[camelCase(key)] = key === 'shard' ? parseShardSpec(value as string) : value;
  const options = out as unknown as PredictOptions;
  options.devices ??= [];
  options.length ??= options.modelType;
  options.modelsDir ??= defaultModelsDir(env);
  if (!options.input) throw new UsageError('no input: give the FASTA file as the first argument (or `input:` in the config file)');
  if (!options.outDir) throw new UsageError('no output folder: give --out-dir DIR (or `out-dir:` in the config file)');
  if (options.resume && options.force) throw new UsageError('--resume and --force contradict each other: --resume keeps the earlier run, --force discards it');
  if (options.embeddingsDtype !== undefined && !options.saveEmbeddings) throw new UsageError(`--embeddings-dtype ${options.embeddingsDtype} needs --save-embeddings (without it no embeddings are written)`);
  asUsage(() => checkPrecisionOption(options.backend, options.precision));
  if (options.length !== options.modelType && !options.mlp) {
    throw new UsageError(`--length ${options.length} with --model-type ${options.modelType}: the ${options.modelType} bp MLP was trained on ${options.modelType} bp chunks; pass --mlp FILE to use a different model deliberately`);
  }
  return options;
}
