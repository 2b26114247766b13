import { readFasta } from '@virnucpro/fasta-stream';
import { UsageError } from '../errors.js';

/**
 * Fails with a UsageError when a FASTA file holds no record, reading only up to its first one, so that
 * an empty input is reported before a model is loaded and never becomes an empty output file.
 */
export async function requireFastaRecords(path: string): Promise<void> {
  for await (const _record of readFasta(path)) return; // returning closes the reader
  throw new UsageError(`${path}: no FASTA records (the file is empty or has no ">" header line)`);
}
