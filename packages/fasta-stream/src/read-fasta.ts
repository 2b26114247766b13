import { decodedChunks, type DecodeOptions, type DecodeProgress, type FastaSource } from './decoded-chunks.js';
import { FastaParser, type FastaParserOptions } from './fasta-parser.js';
import type { FastaRecord } from './fasta-record.js';

export interface ReadFastaOptions extends Omit<FastaParserOptions, 'file'>, DecodeOptions {
  /** Name for error messages when the source is a stream (default '<stream>'; paths name themselves). */
  name?: string;
}

/**
 * Streams the records of a FASTA file (plain, gzip or BGZF, detected from magic bytes) in batches:
 * every record completed by one decompressed chunk. The fastest way to read; `readFasta` wraps it.
 */
export async function* readFastaBatches(source: FastaSource, options: ReadFastaOptions = {}): AsyncGenerator<FastaRecord[]> {
  const file = typeof source === 'string' ? source : options.name ?? '<stream>';
  const parser = new FastaParser({ ...options, file });
  const progress: DecodeProgress = { sourceBytes: 0, compression: undefined };
  const position = () => parser.position;
  for await (const chunk of decodedChunks(source, file, options, progress, position)) {
    const batch: FastaRecord[] = [];
    parser.push(chunk, batch);
    if (batch.length > 0) yield batch;
  }
  const last: FastaRecord[] = [];
  parser.finish(last);
  if (last.length > 0) yield last;
}

/**
 * Streams the records of a FASTA file with Biopython `SeqIO.parse(f, "fasta")` semantics.
 * Reads lazily: the source is read only as far as the consumer has pulled (plus one chunk), and is
 * closed when the consumer stops early.
 */
export async function* readFasta(source: FastaSource, options: ReadFastaOptions = {}): AsyncGenerator<FastaRecord> {
  for await (const batch of readFastaBatches(source, options)) yield* batch;
}
