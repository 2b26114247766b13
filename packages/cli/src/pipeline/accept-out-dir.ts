import { access, constants } from 'node:fs/promises';
import { assertOutputDirUsable, OutputDirNotEmptyError } from '@virnucpro/atomic-file';
import { UsageError } from '../errors.js';
import { outDirError } from '../fs/out-dir-error.js';

/**
 * `--out-dir` accepted for a run (created if missing; refused if it holds results, unless --resume or --force), and
 * writable: an existing folder we cannot write into fails now, in one line, rather than at the first output file.
 */
export async function acceptOutDir(outDir: string, options: { resume: boolean; force: boolean }): Promise<{ existed: boolean; empty: boolean }> {
  let state: { existed: boolean; empty: boolean };
  try {
    state = await assertOutputDirUsable(outDir, options);
  } catch (err) {
    throw err instanceof OutputDirNotEmptyError ? new UsageError(err.message) : outDirError(outDir, err);
  }
  await access(outDir, constants.W_OK).catch((err: unknown) => {
    throw outDirError(outDir, err);
  });
  return state;
}
