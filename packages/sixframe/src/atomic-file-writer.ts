import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

const FLUSH_BYTES = 1 << 20;

/**
 * A text file that appears under its final name only when complete: writes go to a temp file in the same
 * directory, `commit()` flushes, fsyncs, renames and fsyncs the directory; `abort()` removes the temp file.
 * Text is buffered and written in ~1 MiB blocks; `write` returns a promise only when a block went to disk, so
 * awaiting it bounds memory (backpressure).
 */
export class AtomicFileWriter {
  readonly path: string;
  readonly tempPath: string;
  private parts: string[] = [];
  private buffered = 0;
  private closed = false;

  private constructor(path: string, tempPath: string, private readonly handle: FileHandle) {
    this.path = path;
    this.tempPath = tempPath;
  }

  static async create(path: string): Promise<AtomicFileWriter> {
    const tempPath = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const handle = await open(tempPath, 'wx');
    return new AtomicFileWriter(path, tempPath, handle);
  }

  /** Appends text (ASCII/latin1 content is written byte for byte; other text as UTF-8). */
  write(text: string): Promise<void> | undefined {
    this.parts.push(text);
    this.buffered += text.length;
    return this.buffered >= FLUSH_BYTES ? this.flush() : undefined;
  }

  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const block = this.parts.join('');
    this.parts = [];
    this.buffered = 0;
    await this.handle.write(block, null, 'utf8');
  }

  /** Makes the file visible under its final name, durably (`finish` then `publish`). */
  async commit(): Promise<void> {
    await this.finish();
    await this.publish();
  }

  /** Step 1 of a commit: everything on disk (flush, fsync, close) under the temp name. */
  async finish(): Promise<void> {
    await this.flush();
    await this.handle.sync();
    await this.handle.close();
    this.closed = true;
  }

  /** Step 2 of a commit: rename to the final name and fsync the directory. */
  async publish(): Promise<void> {
    await rename(this.tempPath, this.path);
    await fsyncDirectory(dirname(this.path));
  }

  /** Discards everything written; safe to call after a failed write or commit. */
  async abort(): Promise<void> {
    this.parts = [];
    if (!this.closed) {
      this.closed = true;
      await this.handle.close().catch(() => undefined);
    }
    await rm(this.tempPath, { force: true });
  }
}

async function fsyncDirectory(dir: string): Promise<void> {
  // Persists the rename itself; not every platform lets a directory be opened, so this is best effort.
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    /* ignore: the data is already synced */
  }
}
