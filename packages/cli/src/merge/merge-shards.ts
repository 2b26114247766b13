import { readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirectory, writeFileAtomicSync } from '@virnucpro/atomic-file';
import { UsageError } from '../errors.js';
import { RUN_SUMMARY_FILE } from '../pipeline/run-predict.js';
import { writeMergedOutputs, ShardContentError } from './merge-outputs.js';
import { mergedRunSummary, type MergedRunSummary } from './merged-run-summary.js';
import { loadShardSet } from './shard-set.js';

export interface MergeOptions {
  shardDirs: string[];
  outDir: string;
  /** Overwrite results already in outDir. */
  force: boolean;
}

/**
 * `virnucpro merge`: checks that the shard folders cover one input exactly once (see loadShardSet), then writes
 * the results of one unsharded run into `outDir`, all files under temporary names first and renamed only when
 * every one is complete, run_summary.json last. Any refusal or failure leaves no result file behind.
 */
export async function mergeShards(options: MergeOptions): Promise<MergedRunSummary> {
  const set = await loadShardSet(options.shardDirs);
  const created = await prepareOutDir(options.outDir, options.force);
  try {
    const files = await writeMergedOutputs(set, options.outDir);
    const summary = mergedRunSummary(set);
    for (const file of files) await file.publish();
    writeFileAtomicSync(join(options.outDir, RUN_SUMMARY_FILE), JSON.stringify(summary, null, 2) + '\n');
    return summary;
  } catch (err) {
    if (created) await rmdir(options.outDir).catch(() => undefined);
    throw err instanceof ShardContentError ? new UsageError(`merge: ${err.message}`) : err;
  }
}

/** Creates outDir if missing (returns true then); refuses one holding anything unless `force`. */
async function prepareOutDir(dir: string, force: boolean): Promise<boolean> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') throw new UsageError(`merge: --out-dir ${dir} is a file, not a folder`);
    if (code !== 'ENOENT') throw err;
    await makeDirectory(dir);
    return true;
  }
  if (entries.length > 0 && !force) throw new UsageError(`merge: --out-dir ${dir} is not empty; use --force to overwrite the results in it`);
  return false;
}
