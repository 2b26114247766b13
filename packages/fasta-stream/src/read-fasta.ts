import type { FastaSource } from './decoded-chunks.js';
import type { FastaRecord } from './fasta-record.js';
import { readFastaBlocks, type ReadFastaOptions } from './read-fasta-blocks.js';
import { RecordIterator } from './record-iterator.js';

/**
 * Streams the records of a FASTA file in batches: every record completed by one read (see
 * `readFastaBlocks`), as plain objects.
 */
export async function* readFastaBatches(source: FastaSource, options: ReadFastaOptions = {}): AsyncGenerator<FastaRecord[]> {
  for await (const block of readFastaBlocks(source, options)) yield block.records();
}

/**
 * Streams the records of a FASTA file with Biopython `SeqIO.parse(f, "fasta")` semantics.
 * Reads lazily: the source is read only as far as the consumer has pulled (plus up to three chunks), and
 * is closed when the consumer stops early.
 */
export function readFasta(source: FastaSource, options: ReadFastaOptions = {}): AsyncGenerator<FastaRecord, void, unknown> {
  return new RecordIterator(readFastaBatches(source, options));
}
