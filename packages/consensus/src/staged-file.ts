// A text output file that appears under its name only when complete: buffered appends over an AtomicFile
// (@virnucpro/atomic-file: temporary name, fsync, rename; errors name the file). Several staged files can
// be completed first and published one after the other.
import { AtomicFile, type StagedOutput } from '@virnucpro/atomic-file';

const FLUSH_AT = 1 << 20; // characters of pending text before a write goes to the OS

export class StagedFile implements StagedOutput {
  private pending: string[] = [];
  private pendingLength = 0;

  private constructor(private readonly file: AtomicFile) {}

  static async create(path: string): Promise<StagedFile> {
    return new StagedFile(await AtomicFile.create(path));
  }

  get path(): string {
    return this.file.path;
  }

  get tempPath(): string {
    return this.file.tempPath;
  }

  /** Appends text; resolves at once unless a megabyte is pending, then after it is handed to the OS. */
  async write(text: string): Promise<void> {
    this.pending.push(text);
    this.pendingLength += text.length;
    if (this.pendingLength >= FLUSH_AT) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingLength = 0;
    await this.file.write(text);
  }

  /** Flushes, fsyncs and closes the temp file (still under its temporary name). */
  async complete(): Promise<void> {
    await this.flush();
    await this.file.complete();
  }

  /** Renames the completed temp file over the target. */
  async publish(): Promise<void> {
    await this.complete();
    await this.file.publish();
  }

  /** Closes and deletes the temp file; the target is left untouched. Safe to call in any state. */
  async discard(): Promise<void> {
    this.pending = [];
    await this.file.discard();
  }
}
