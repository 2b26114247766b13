import { createHash } from 'node:crypto';
import { readFasta } from '@virnucpro/fasta-stream';

/**
 * The input's identity for --resume: sha256 over its records (id, description, sequence, in order) as read, i.e.
 * after decompression and FASTA parsing. The same sequences given gzipped, plain, re-wrapped or with CRLF line
 * ends are the same input; any change to an id or a residue is another one. (File bytes would tell a gzip of the
 * input from the input itself.)
 */
export async function fingerprintFastaRecords(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const record of readFasta(path)) hash.update(`>${record.id}\t${record.description}\n${record.sequence}\n`);
  return `sha256:${hash.digest('hex')}`;
}
