import { readdir } from 'node:fs/promises';
import { makeDirectory } from './make-directory.js';

/** A fresh run would write into a directory that already holds results. */
export class OutputDirNotEmptyError extends Error {
  constructor(readonly dir: string) {
    super(`output directory ${dir} is not empty; pass --resume to continue that run or --force to overwrite it`);
    this.name = 'OutputDirNotEmptyError';
  }
}

/**
 * Guards an output directory before a run: a fresh run (no resume) into a non-empty directory is
 * an error unless `force`. Creates the directory if needed. Returns whether it held anything.
 */
export async function assertOutputDirUsable(dir: string, options: { resume?: boolean; force?: boolean }): Promise<{ existed: boolean; empty: boolean }> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await makeDirectory(dir);
    return { existed: false, empty: true };
  }
  const empty = entries.length === 0;
  if (!empty && !options.resume && !options.force) throw new OutputDirNotEmptyError(dir);
  return { existed: true, empty };
}
