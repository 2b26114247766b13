import { stat } from 'node:fs/promises';
import { readFasta } from '@virnucpro/fasta-stream';
import { UsageError } from '../errors.js';

/**
 * Fails with a UsageError when a file is not FASTA, reading only up to its first record, so that bad input is
 * reported before a model is loaded and never becomes an empty output file. The same refusals as
 * `virnucpro prep`: an empty file, text before the first '>' header (a file with no header at all), binary
 * data (the reader's FastaFormatError, exit 2 too), or no record. `name` is how the file is named in the
 * message (default: `path`).
 */
export async function requireFastaRecords(path: string, name: string = path): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (info?.isFile() && info.size === 0) throw new UsageError(`${name}: no FASTA records (the file is empty)`);
  try {
    for await (const _record of readFasta(path, { leadingText: 'error' })) return; // returning closes the reader
  } catch (err) {
    if ((err as Error).name === 'FastaFormatError' && name !== path) throw new UsageError((err as Error).message.replace(path, name));
    throw err;
  }
  throw new UsageError(`${name}: no FASTA records (the file is empty or has no ">" header line)`);
}
