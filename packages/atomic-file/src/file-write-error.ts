/**
 * A failed write, open, fsync or rename of an output file, saying which file (Node's own message names
 * only the system call: `ENOSPC: no space left on device, write`). Keeps the original `code` (ENOSPC,
 * EACCES…) and the error as `cause`.
 */
export class FileWriteError extends Error {
  readonly code: string | undefined;
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super(`cannot write ${path}: ${describe(cause)}`, { cause });
    this.name = 'FileWriteError';
    this.code = (cause as NodeJS.ErrnoException | undefined)?.code;
  }
}

const REASONS: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  EIO: 'input/output error',
};

function describe(cause: unknown): string {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  if (code && REASONS[code]) return `${REASONS[code]} (${code})`;
  return cause instanceof Error ? cause.message : String(cause);
}

/** `error` as a FileWriteError naming `path` (unchanged if it already is one). */
export function namingFile(path: string, error: unknown): FileWriteError {
  return error instanceof FileWriteError ? error : new FileWriteError(path, error);
}
