// A file written under a temporary name beside its target and only renamed into place once complete
// (buffered appends, fsync, rename), so a crash or an error never leaves a partial output file. Several
// staged files can be completed first and published one after the other.

import { randomBytes } from 'node:crypto';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

const FLUSH_AT = 1 << 20; // bytes of pending text before a write goes to the OS

export class StagedFile {
  private pending: string[] = [];
  private pendingLength = 0;
  private state: 'open' | 'complete' | 'published' | 'discarded' = 'open';
  private writing: Promise<void> = Promise.resolve(); // writes reach the file in call order

  private constructor(
    readonly path: string,
    readonly tempPath: string,
    private readonly fh: FileHandle,
  ) {}

  static async create(path: string): Promise<StagedFile> {
    const tempPath = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    return new StagedFile(path, tempPath, await open(tempPath, 'wx'));
  }

  /** Appends text; resolves at once unless a megabyte is pending, then after it is handed to the OS. */
  async write(text: string): Promise<void> {
    if (this.state !== 'open') throw new Error(`${this.path}: write after the file was completed`);
    this.pending.push(text);
    this.pendingLength += text.length;
    if (this.pendingLength >= FLUSH_AT) await this.flush();
  }

  private flush(): Promise<void> {
    if (this.pending.length > 0) {
      const text = this.pending.join('');
      this.pending = [];
      this.pendingLength = 0;
      this.writing = this.writing.then(async () => {
        await this.fh.write(text, null, 'utf8');
      });
    }
    return this.writing;
  }

  /** Flushes, fsyncs and closes the temp file (still under its temporary name). */
  async complete(): Promise<void> {
    if (this.state !== 'open') return;
    await this.flush();
    await this.fh.sync();
    await this.fh.close();
    this.state = 'complete';
  }

  /** Renames the completed temp file over the target. */
  async publish(): Promise<void> {
    await this.complete();
    await rename(this.tempPath, this.path);
    this.state = 'published';
  }

  /** Closes and deletes the temp file; the target is left untouched. Safe to call in any state. */
  async discard(): Promise<void> {
    if (this.state === 'published' || this.state === 'discarded') return;
    if (this.state === 'open') await this.fh.close().catch(() => undefined);
    await unlink(this.tempPath).catch(() => undefined);
    this.state = 'discarded';
  }
}

/** Writes a whole text file atomically. */
export async function writeTextFileAtomic(path: string, text: string): Promise<void> {
  const file = await StagedFile.create(path);
  try {
    await file.write(text);
    await file.publish();
  } catch (error) {
    await file.discard();
    throw error;
  }
}
