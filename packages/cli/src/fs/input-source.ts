import { createReadStream, createWriteStream, rmSync, statSync, type ReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { UsageError } from '../errors.js';

/** What a lone `-` argument becomes (main.ts rewrites it: yargs cannot parse a bare `-`). */
export const STDIN_PATH = '/dev/stdin';

export interface InputFile {
  /** A regular file holding the input (the argument itself, or a temporary copy of a pipe). */
  path: string;
  /** How messages and run_summary.json name the input: the argument, or `-` for standard input. */
  name: string;
  /** Removes the temporary copy, if one was made. */
  dispose(): Promise<void>;
}

/**
 * The input argument as a regular file that can be read more than once (predict reads its input twice, and
 * checkpoints fingerprint it). `-` / `/dev/stdin` (standard input) and other non-regular files (a FIFO,
 * `/dev/fd/N` of a process substitution) are copied, as they are — plain or gzip, the reader detects which from
 * the content — to a temporary file in $TMPDIR, removed when the command ends (also on exit by a signal).
 * Memory stays bounded: the copy streams. A regular or missing file is returned unchanged (missing files are
 * reported by the caller).
 */
export async function openInputFile(input: string): Promise<InputFile> {
  const stdin = input === STDIN_PATH || input === '-' || input === '/proc/self/fd/0' || input === '/dev/fd/0';
  if (!stdin) {
    const info = statSync(input, { throwIfNoEntry: false });
    if (!info || info.isFile() || info.isDirectory()) return { path: input, name: input, dispose: async () => undefined };
  }
  if (stdin && process.stdin.isTTY) {
    throw new UsageError('the input is standard input (-), but that is a terminal: pipe FASTA into it, e.g. `zcat reads.fa.gz | virnucpro predict - --out-dir results`');
  }
  const dir = await mkdtemp(join(tmpdir(), 'virnucpro-input-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeDir);
  const path = join(dir, 'input');
  // Standard input is read through process.stdin: Node's own pipes are socket pairs, which open('/dev/stdin') refuses.
  const source: NodeJS.ReadableStream | ReadStream = stdin ? process.stdin : createReadStream(input);
  try {
    await pipeline(source, createWriteStream(path));
  } catch (err) {
    removeDir();
    process.off('exit', removeDir);
    throw new UsageError(`cannot read ${stdin ? 'standard input' : input}: ${(err as Error).message}`);
  }
  return {
    path,
    name: stdin ? '-' : input,
    dispose: async () => {
      process.off('exit', removeDir);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `err` with the temporary copy's path in its message replaced by the input's name. */
export function renameInputInError(err: unknown, file: InputFile): unknown {
  if (file.path === file.name || !(err instanceof Error) || !err.message.includes(file.path)) return err;
  const name = file.name === '-' ? 'standard input' : file.name;
  try {
    err.message = err.message.split(file.path).join(name);
  } catch {
    // a read-only message: keep it
  }
  return err;
}
