import { AtomicFile } from './atomic-file.js';
import type { StagedOutput } from './staged-output.js';

const BLOCK_BYTES = 1 << 20;

/**
 * An AtomicFile for output made of many small pieces of text (FASTA records, TSV rows): the pieces are encoded
 * straight into a ~1 MiB block (no intermediate strings: prep runs this once per read on inputs of millions of
 * reads) and the block goes to the file when full. `write(text)` does that in one call; the synchronous
 * `write*` methods let a hot loop check `full` and await `flush()` itself, which bounds memory (backpressure).
 * `complete()`, `publish()`, `commit()` and `discard()` as AtomicFile's (a StagedOutput).
 */
export class BufferedAtomicFile implements StagedOutput {
  private block: Buffer = Buffer.allocUnsafe(BLOCK_BYTES);
  private used = 0;
  /** Blocks filled by a piece that did not fit in the rest of one, waiting for `flush()` (at most one in a loop that checks `full`). */
  private readonly filled: Buffer[] = [];
  /**
   * Blocks written out, to fill again: a block is in the OS's hands only from `flush()` to the end of its write, and
   * a flush hands over at most two (the one a piece did not fit and the one it started). A new block for each (1 MiB
   * a megabyte of output) was memory outside V8's heap that only a full collection gave back: up to ~64 MB more
   * before V8 collected for it (issue 46).
   */
  private readonly spares: Buffer[] = [];
  private scratch = Buffer.allocUnsafe(1024);

  private constructor(private readonly file: AtomicFile) {}

  static async create(path: string): Promise<BufferedAtomicFile> {
    return new BufferedAtomicFile(await AtomicFile.create(path));
  }

  get path(): string {
    return this.file.path;
  }

  get tempPath(): string {
    return this.file.tempPath;
  }

  /** True once a block's worth of bytes is buffered: await `flush()` before writing much more. */
  get full(): boolean {
    return this.used >= BLOCK_BYTES || this.filled.length > 0;
  }

  /** Appends text as UTF-8; resolves at once unless the block is full, then once it is handed to the OS. */
  async write(text: string): Promise<void> {
    if (text.length >= BLOCK_BYTES) {
      // A whole table at once (a consensus csv): straight to the file, not through a block grown to 3 bytes a character.
      await this.flush();
      await this.file.write(text);
      return;
    }
    this.writeText(text);
    if (this.full) await this.flush();
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
    const blocks = this.filled.splice(0);
    if (this.used > 0) {
      blocks.push(this.block.subarray(0, this.used));
      this.block = this.nextBlock();
      this.used = 0;
    }
    for (const bytes of blocks) {
      await this.file.write(bytes);
      if (bytes.buffer.byteLength === BLOCK_BYTES && this.spares.length < 2) this.spares.push(Buffer.from(bytes.buffer, bytes.byteOffset, BLOCK_BYTES));
    }
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
    this.filled.length = 0;
    await this.file.discard();
  }

  /**
   * Makes room for `bytes` more: a piece that fits a block but not the rest of this one starts the next block
   * (this one waits for `flush()`; growing it instead kept every file's block at twice the size for good), and
   * only a piece larger than a block grows it (rarely: one huge record).
   */
  private reserve(bytes: number): void {
    if (this.used + bytes <= this.block.length) return;
    if (this.used > 0 && bytes <= BLOCK_BYTES) {
      this.filled.push(this.block.subarray(0, this.used));
      this.block = this.nextBlock();
      this.used = 0;
      return;
    }
    const grown = Buffer.allocUnsafe(Math.max(2 * this.block.length, this.used + bytes));
    this.block.copy(grown, 0, 0, this.used);
    this.block = grown;
  }

  /** A spare block if there is one (its write is over), else a new one. */
  private nextBlock(): Buffer {
    return this.spares.pop() ?? Buffer.allocUnsafe(BLOCK_BYTES);
  }
}

function isAscii(text: string): boolean {
  return Buffer.byteLength(text, 'utf8') === text.length;
}
