import { chunkLayout } from './chunk-layout.js';

/** The part of a FASTA record chunking needs (a `FastaRecord` from `@virnucpro/fasta-stream` fits). */
export interface SequenceRecord {
  id: string;
  sequence: string;
}

/** One chunk: `{record.id}_chunk_{k}` (1-based) and its bases, case preserved. */
export interface Chunk {
  id: string;
  sequence: string;
}

/**
 * Cuts one record into overlapping chunks of at most `chunkSize` bases, exactly like VirNucPro's
 * `split_fasta_chunk` (see {@link chunkLayout} for the arithmetic). A record no longer than `chunkSize`
 * becomes the single chunk `{id}_chunk_1`. The description is dropped, as in the original.
 */
export function chunkRecord(record: SequenceRecord, chunkSize: number): Chunk[] {
  const { id, sequence } = record;
  return chunkLayout(sequence.length, chunkSize).map((span, k) => ({
    id: `${id}_chunk_${k + 1}`,
    sequence: sequence.slice(span.start, span.end),
  }));
}
