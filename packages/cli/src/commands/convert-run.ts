import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseTempName } from '@virnucpro/atomic-file';
import { onTerminationSignal } from '../termination-signal.js';
import type { ConvertedModel } from '@virnucpro/ops';
import { UsageError } from '../errors.js';

/** What a model converter reports about the artifact it wrote (of @virnucpro/ops' ConvertedModel). */
type ConvertedCounts = Pick<ConvertedModel, 'tensors' | 'parameters'>;

export interface ConvertSummary extends ConvertedCounts {
  src: string;
  dest: string;
  /** Bytes of every file in DEST (model.json, shards, config/tokenizer). */
  bytes: number;
  seconds: number;
}

export interface ConvertRunOptions {
  /** Model name for messages, e.g. "ESM-2". */
  label: string;
  src: string;
  dest: string;
  /** Writes the artifact at `dest`; must itself be atomic (temp beside dest, then rename). */
  convert: (src: string, dest: string) => Promise<ConvertedCounts>;
  log?: (line: string) => void;
}

/**
 * The part every `virnucpro convert <model>` shares: SRC must exist and DEST must not (a converted
 * folder is never silently replaced), Ctrl-C / kill removes the converter's temp folder beside DEST,
 * and a one-line summary goes to the log.
 */
export async function runConvert(options: ConvertRunOptions): Promise<ConvertSummary> {
  const { src, label } = options;
  const dest = resolve(options.dest);
  if (!existsSync(src)) throw new UsageError(`${src}: ${label} model not found (no such file or folder)`);
  if (existsSync(dest)) throw new UsageError(`${options.dest}: already exists; remove it or choose a new output folder`);

  // The library writers stage into `.<DEST name>.…<pid>…` beside DEST; a signal would otherwise leave it behind.
  const stopHandling = onTerminationSignal((signal) => {
    removeStaging(dest);
    // DEST only ever appears by rename, so if it exists now it is complete.
    const state = existsSync(dest) ? `${options.dest} was already complete` : `nothing written at ${options.dest}`;
    options.log?.(`interrupted by ${signal}; ${state}`);
  });
  const started = performance.now();
  let converted: ConvertedCounts;
  try {
    converted = await options.convert(src, dest);
  } catch (error) {
    removeStaging(dest);
    throw error;
  } finally {
    stopHandling();
  }
  const seconds = (performance.now() - started) / 1000;
  const bytes = readdirSync(dest).reduce((n, f) => n + statSync(join(dest, f)).size, 0);
  const summary: ConvertSummary = { ...converted, src, dest: options.dest, bytes, seconds };
  options.log?.(
    `converted ${label} ${src} -> ${options.dest}: ${summary.tensors} tensors, ${summary.parameters.toLocaleString('en-US')} parameters, ` +
      `${bytes.toLocaleString('en-US')} bytes in ${seconds.toFixed(2)} s`,
  );
  return summary;
}

/**
 * Removes this process's staging folders for `dest`: temporary names of @virnucpro/atomic-file for DEST,
 * or for a staging folder of DEST (a converter that stages a folder and lets the weights writer stage inside it).
 */
function removeStaging(dest: string): void {
  const parent = dirname(dest);
  if (!existsSync(parent)) return;
  const stagesDest = (name: string): boolean => {
    const temp = parseTempName(name);
    return temp !== null && temp.pid === process.pid && (temp.target === basename(dest) || stagesDest(temp.target));
  };
  for (const name of readdirSync(parent)) if (stagesDest(name)) rmSync(join(parent, name), { recursive: true, force: true });
}
