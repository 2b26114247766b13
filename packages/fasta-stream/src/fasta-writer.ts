import { AtomicFile } from '@virnucpro/atomic-file';
import { checkLineWidth, formatFastaRecord } from './fasta-format.js';
import type { FastaRecordLike } from './fasta-record.js';

export interface FastaWriterOptions {
  /** Sequence letters per line: 60 (default, Biopython), 0 = one line, any n ≥ 1. */
  lineWidth?: number;
  /** For stream targets: end the stream on close() (default false, so stdout stays usable). */
  end?: boolean;
}

/** Text is gathered into blocks of about this size before each write call. */
const BLOCK_CHARS = 64 * 1024;

/**
 * Writes FASTA records to a file or a stream, honouring backpressure. A file target is written
 * atomically (an AtomicFile of @virnucpro/atomic-file): records go to a temporary file next to it, which is
 * fsynced and renamed over the target on close(); abort() (or an error) removes it, so a failed run never
 * leaves a partial file.
 */
export class FastaWriter {
  private readonly lineWidth: number;
  private readonly stream: NodeJS.WritableStream | undefined;
  private readonly endStream: boolean;
  private readonly path: string | undefined;
  private file: Promise<AtomicFile> | undefined;
  private block: string[] = [];
  private blockChars = 0;
  private closed = false;
  private streamError: Error | undefined;
  /** Records written so far. */
  count = 0;

  constructor(target: string | NodeJS.WritableStream, options: FastaWriterOptions = {}) {
    this.lineWidth = options.lineWidth ?? 60;
    checkLineWidth(this.lineWidth);
    if (typeof target === 'string') {
      this.path = target;
      this.endStream = true;
    } else {
      this.stream = target;
      this.endStream = options.end ?? false;
      this.stream.on('error', (error: Error) => {
        this.streamError ??= error;
      });
    }
  }

  /** Adds one record; resolves once the target can take more (await it to respect backpressure). */
  async write(record: FastaRecordLike): Promise<void> {
    if (this.closed) throw new Error('FastaWriter: write() after close()');
    this.throwIfFailed();
    const text = formatFastaRecord(record, this.lineWidth);
    this.block.push(text);
    this.blockChars += text.length;
    this.count++;
    if (this.blockChars >= BLOCK_CHARS) await this.flushBlock();
  }

  /** Writes every record of an iterable; returns how many were written. */
  async writeAll(records: Iterable<FastaRecordLike> | AsyncIterable<FastaRecordLike>): Promise<number> {
    const before = this.count;
    for await (const record of records) await this.write(record);
    return this.count - before;
  }

  /** Flushes; a file target is fsynced, closed and renamed into place (also when no record was written). */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flushBlock();
      this.closed = true;
      if (this.path !== undefined) {
        const file = await this.openFile();
        await file.commit();
        this.file = undefined;
      } else if (this.stream && this.endStream) {
        const stream = this.stream;
        await new Promise<void>((resolve, reject) => {
          stream.once('error', reject);
          stream.end(() => resolve());
        });
      }
    } catch (error) {
      await this.abort();
      throw error;
    }
  }

  /** Stops writing; a file target's temporary file is removed and the target is left untouched. */
  async abort(): Promise<void> {
    this.closed = true;
    this.block = [];
    this.blockChars = 0;
    const file = this.file;
    this.file = undefined;
    if (file) await file.then((f) => f.discard()).catch(() => undefined);
  }

  private openFile(): Promise<AtomicFile> {
    this.file ??= AtomicFile.create(this.path as string);
    return this.file;
  }

  private async flushBlock(): Promise<void> {
    if (this.blockChars === 0) {
      if (this.path !== undefined) await this.openFile();
      return;
    }
    const text = this.block.length === 1 ? this.block[0] : this.block.join('');
    this.block = [];
    this.blockChars = 0;
    if (this.path !== undefined) {
      const file = await this.openFile();
      await file.write(text);
      return;
    }
    const stream = this.stream as NodeJS.WritableStream;
    if (!stream.write(text)) {
      await new Promise<void>((resolve, reject) => {
        const onDrain = () => {
          stream.off('error', onError);
          resolve();
        };
        const onError = (error: Error) => {
          stream.off('drain', onDrain);
          reject(error);
        };
        stream.once('drain', onDrain);
        stream.once('error', onError);
      });
    }
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.streamError) throw this.streamError;
  }
}

export interface WriteFastaOptions extends FastaWriterOptions {
  /** Where to write: a path (atomic) or a stream. */
  to: string | NodeJS.WritableStream;
}

/**
 * Writes records as FASTA; returns the number written. `writeFasta(records, path | stream, options?)`
 * or `writeFasta(records, { to, lineWidth })`. On any error a file target is left untouched.
 */
export async function writeFasta(
  records: Iterable<FastaRecordLike> | AsyncIterable<FastaRecordLike>,
  target: string | NodeJS.WritableStream | WriteFastaOptions,
  options: FastaWriterOptions = {},
): Promise<number> {
  const isOptions = typeof target === 'object' && target !== null && 'to' in target && !('write' in target);
  const writer = isOptions ? new FastaWriter(target.to, target) : new FastaWriter(target as string | NodeJS.WritableStream, options);
  try {
    await writer.writeAll(records);
  } catch (error) {
    await writer.abort();
    throw error;
  }
  await writer.close();
  return writer.count;
}
