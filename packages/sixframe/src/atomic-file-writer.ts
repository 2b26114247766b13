import { AtomicFile, type StagedOutput } from '@virnucpro/atomic-file';

const BLOCK_BYTES = 1 << 20;

/**
 * A file that appears under its final name only when complete (an AtomicFile of @virnucpro/atomic-file):
 * `commit()` flushes, fsyncs, renames and fsyncs the directory; `discard()` removes the temp file (a StagedOutput).
 *
 * Text is encoded straight into a ~1 MiB block buffer (no intermediate strings: this runs once per read on
 * inputs of millions of reads). The `write*` methods are synchronous; when `full` turns true the caller awaits
 * `flush()`, which bounds memory (backpressure).
 */
export class AtomicFileWriter implements StagedOutput {
  private block = Buffer.allocUnsafe(BLOCK_BYTES);
  private used = 0;
  private scratch = Buffer.allocUnsafe(1024);

  private constructor(private readonly file: AtomicFile) {}

  static async create(path: string): Promise<AtomicFileWriter> {
    return new AtomicFileWriter(await AtomicFile.create(path));
  }

  get path(): string {
    return this.file.path;
  }

  get tempPath(): string {
    return this.file.tempPath;
  }

  /** True once a block's worth of bytes is buffered: await `flush()` before writing much more. */
  get full(): boolean {
    return this.used >= BLOCK_BYTES;
  }

  /** Appends text as UTF-8. */
  writeText(text: string): void {
    this.reserve(text.length * 3);
    this.used += this.block.write(text, this.used, 'utf8');
  }

  /** Appends text that is usually ASCII (sequences); same bytes as `writeText`, faster for ASCII. */
  writeAscii(text: string): void {
    if (!isAscii(text)) return this.writeText(text);
    this.reserve(text.length);
    this.used += this.block.write(text, this.used, 'latin1');
  }

  /** Appends one byte, e.g. a line break. */
  writeByte(byte: number): void {
    this.reserve(1);
    this.block[this.used++] = byte;
  }

  /** Appends text cut into lines of `width` characters, each followed by '\n' (nothing for ''), as UTF-8. */
  writeWrapped(text: string, width: number): void {
    if (!isAscii(text)) {
      // Python counts characters (code points), not bytes or UTF-16 units.
      const chars = Array.from(text);
      for (let i = 0; i < chars.length; i += width) {
        this.writeText(chars.slice(i, i + width).join(''));
        this.writeByte(0x0a);
      }
      return;
    }
    const n = text.length;
    this.reserve(n + Math.ceil(n / width));
    if (this.scratch.length < n) this.scratch = Buffer.allocUnsafe(Math.max(n, 2 * this.scratch.length));
    this.scratch.write(text, 0, 'latin1');
    for (let i = 0; i < n; i += width) {
      const end = Math.min(n, i + width);
      this.used += this.scratch.copy(this.block, this.used, i, end);
      this.block[this.used++] = 0x0a;
    }
  }

  async flush(): Promise<void> {
    if (this.used === 0) return;
    const bytes = this.block.subarray(0, this.used);
    this.block = Buffer.allocUnsafe(Math.max(BLOCK_BYTES, this.block.length));
    this.used = 0;
    await this.file.write(bytes);
  }

  /** Makes the file visible under its final name, durably (`complete` then `publish`). */
  async commit(): Promise<void> {
    await this.complete();
    await this.publish();
  }

  /** Step 1 of a commit: everything on disk (flush, fsync, close) under the temp name. */
  async complete(): Promise<void> {
    await this.flush();
    await this.file.complete();
  }

  /** Step 2 of a commit: rename to the final name and fsync the directory. */
  async publish(): Promise<void> {
    await this.complete();
    await this.file.publish();
  }

  /** Discards everything written; safe to call after a failed write or commit. */
  async discard(): Promise<void> {
    this.used = 0;
    await this.file.discard();
  }

  /** Grows the block (rarely: one huge record) so that `bytes` more fit. */
  private reserve(bytes: number): void {
    if (this.used + bytes <= this.block.length) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * this.block.length, this.used + bytes));
    this.block.copy(grown, 0, 0, this.used);
    this.block = grown;
  }
}

function isAscii(text: string): boolean {
  return Buffer.byteLength(text, 'utf8') === text.length;
}
