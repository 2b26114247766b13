import { chunkByteSource, fileByteSource, type ByteSource } from './byte-source.js';
import { detectCompression } from './compression.js';
import { decodedChunks, DEFAULT_CHUNK_SIZE, type DecodeOptions, type DecodeProgress, type FastaSource } from './decoded-chunks.js';
import { RecordBlock, ScannedBlock, type FastaBlock } from './fasta-block.js';
import { FastaParser, type FastaParserOptions } from './fasta-parser.js';
import type { FastaRecord } from './fasta-record.js';
import { FastaScanner } from './fasta-scanner.js';
import { FastqParser, startsAsFastq } from './fastq-parser.js';
import { ReadAhead } from './read-ahead.js';

export interface ReadFastaOptions extends Omit<FastaParserOptions, 'file' | 'startLine' | 'startByte'>, DecodeOptions {
  /** Name for error messages when the source is a stream (default '<stream>'; paths name themselves). */
  name?: string;
}

/**
 * Streams the records of a FASTA or FASTQ file (plain, gzip or BGZF, detected from magic bytes; FASTQ when the
 * text starts with '@': see FastqParser, qualities are dropped) in blocks: the
 * records completed by each read. The fastest way to read: a WebAssembly scanner finds the records and
 * counts residues without making strings; `FastaBlock` makes them on request. Input the scanner does not
 * handle (CR line ends, spaces/tabs in sequence lines, control or non-ASCII bytes, text before the first
 * '>', `semicolonComments`) goes, from the record where it appears, through the general parser: the
 * records are the same either way. Reads up to three chunks ahead of the consumer (one for streams and gzip).
 */
export async function* readFastaBlocks(source: FastaSource, options: ReadFastaOptions = {}): AsyncGenerator<FastaBlock> {
  const file = typeof source === 'string' ? source : options.name ?? '<stream>';
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const scanner = new FastaScanner(chunkSize);
  let parser: FastaParser | FastqParser | undefined;
  const position = () => parser?.position ?? scanner.position;
  const fromChunks = () => {
    const progress: DecodeProgress = { sourceBytes: 0, compression: undefined };
    return chunkByteSource(decodedChunks(source, file, { chunkSize }, progress, position)[Symbol.asyncIterator]());
  };

  let input: ByteSource = typeof source === 'string' ? await fileByteSource(source) : fromChunks();
  let reads: ReadAhead | undefined;
  try {
    scanner.prepareWindow();
    let n = await input.readAt(scanner.readTarget(0)!, 0);
    const head = scanner.bytes.subarray(scanner.filled, scanner.filled + n);
    if (typeof source === 'string' && n > 0 && !isPlain(head)) {
      // Compressed (or an unsupported format, which decodedChunks reports): start again through gunzip.
      await input.close();
      input = fromChunks();
      n = await input.readAt(scanner.readTarget(0)!, 0);
    }
    scanner.filled += n;
    reads = new ReadAhead(input, scanner, n);
    let done = n === 0;
    let bail = options.semicolonComments === true || !scanner.startsWithHeader();
    while (!bail) {
      if (!done) reads.fill();
      bail = scanner.scan(done) === 'bail';
      const { table, count } = scanner.takeRecords();
      if (count > 0) {
        yield new ScannedBlock(scanner, table, count);
        // The consumer asked for the next block: this one may no longer read the window.
        scanner.generation++;
      }
      if (bail || done) break;
      done = (await reads.next()) === 0;
    }
    if (!bail) return;

    // The general parser takes over at the open record's '>' (or the first byte); input that starts with '@' is FASTQ.
    scanner.generation++;
    await reads.drain();
    const at = scanner.handover();
    parser = at.byte === 0 && startsAsFastq(at.bytes)
      ? new FastqParser({ file, startLine: at.line, startByte: at.byte })
      : new FastaParser({ ...options, file, startLine: at.line, startByte: at.byte });
    let out: FastaRecord[] = [];
    parser.push(Buffer.from(at.bytes), out);
    const buffer = Buffer.allocUnsafe(chunkSize);
    for (;;) {
      if (out.length > 0) yield new RecordBlock(out);
      out = [];
      const got = await input.readAt(buffer, reads.position);
      if (got === 0) break;
      reads.position += got;
      parser.push(buffer.subarray(0, got), out);
    }
    parser.finish(out);
    if (out.length > 0) yield new RecordBlock(out);
  } finally {
    scanner.generation++;
    await reads?.settle();
    await input.close();
  }
}

function isPlain(head: Uint8Array): boolean {
  const detected = detectCompression(head);
  return 'compression' in detected && detected.compression === 'none';
}
