import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';

/**
 * A file-system error of creating or opening --out-dir as one line that says what is wrong (exit 2), instead of
 * the raw `ENOTDIR: … scandir` / `ENOENT … mkdir`. Other errors pass through unchanged.
 */
export function outDirError(dir: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    let file = dir;
    const isFile = (path: string) => {
      try {
        return statSync(path).isFile();
      } catch {
        return false;
      }
    };
    while (dirname(file) !== file && !isFile(file)) file = dirname(file);
    const what = file === dir ? 'is a file' : `is inside ${file}, which is a file`;
    return new UsageError(`--out-dir ${dir} ${what}, not a folder: name a folder (it is created if missing)`);
  }
  const why: Record<string, string> = {
    EROFS: 'the file system is read-only',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    ENOENT: 'a folder on its path cannot be created (a read-only or vanished location?)',
    ENOSPC: 'no space left on the device',
    EDQUOT: 'disk quota exceeded',
  };
  if (code && why[code]) return new UsageError(`--out-dir ${dir}: cannot create or write this folder: ${why[code]}`);
  return err;
}
