import { open, unlink, type FileHandle } from 'node:fs/promises';
import { namingFile } from './file-write-error.js';
import { injectedWriteFault } from './injected-faults.js';
import { renameIntoPlace } from './publish-file.js';
import type { StagedOutput } from './staged-output.js';
import { tempPathFor } from './temp-name.js';

/**
 * A file that appears under its name only when complete. Bytes go to a temporary file beside it
 * (tempPathFor); `complete()` fsyncs and closes it, `publish()` renames it into place and fsyncs the folder,
 * `commit()` does both; `discard()` removes it and leaves the target untouched (a StagedOutput). Completing several files
 * before publishing any lets a set of outputs appear together. Every failure names the file.
 *
 * No buffering here: callers hand over blocks of their own size (writes reach the file in call order).
 */
export class AtomicFile implements StagedOutput {
  private state: 'open' | 'completed' | 'published' | 'discarded' = 'open';
  private writing: Promise<void> = Promise.resolve();
  /** writeAt's writes under way. */
  private readonly placed = new Set<Promise<void>>();

  private constructor(
    readonly path: string,
    readonly tempPath: string,
    private readonly handle: FileHandle,
  ) {}

  static async create(path: string): Promise<AtomicFile> {
    const tempPath = tempPathFor(path);
    try {
      return new AtomicFile(path, tempPath, await open(tempPath, 'wx'));
    } catch (error) {
      throw namingFile(path, error);
    }
  }

  /** Appends bytes or UTF-8 text; resolves once handed to the OS. */
  write(data: string | Uint8Array): Promise<void> {
    if (this.state !== 'open') return Promise.reject(new Error(`${this.path}: write after the file was completed or discarded`));
    this.writing = this.writing.then(async () => {
      const fault = injectedWriteFault(this.path);
      if (fault) throw fault;
      if (typeof data === 'string') await this.handle.write(data, null, 'utf8');
      else await writeAll(this.handle, data);
    });
    return this.writing.catch((error: unknown) => {
      throw namingFile(this.path, error);
    });
  }

  /**
   * Writes bytes at `position`, beside any other writes under way (the caller keeps their ranges apart; `write`'s
   * appends do not see these); resolves once handed to the OS. `complete()` waits for them.
   */
  writeAt(data: Uint8Array, position: number): Promise<void> {
    if (this.state !== 'open') return Promise.reject(new Error(`${this.path}: write after the file was completed or discarded`));
    const write = (async () => {
      const fault = injectedWriteFault(this.path);
      if (fault) throw fault;
      for (let done = 0; done < data.length; ) {
        done += (await this.handle.write(data, done, Math.min(MAX_WRITE, data.length - done), position + done)).bytesWritten;
      }
    })();
    this.placed.add(write);
    const settled = () => this.placed.delete(write);
    write.then(settled, settled);
    return write.catch((error: unknown) => {
      throw namingFile(this.path, error);
    });
  }

  /** Everything written is on disk (fsync) and the file closed, still under its temporary name. */
  async complete(): Promise<void> {
    if (this.state !== 'open') return;
    try {
      await this.writing;
      await Promise.all(this.placed);
      const fault = injectedWriteFault(this.path);
      if (fault) throw fault;
      await this.handle.sync();
      await this.handle.close();
      this.state = 'completed';
    } catch (error) {
      throw namingFile(this.path, error);
    }
  }

  /** Renames the completed file over its target and makes the rename durable. */
  async publish(): Promise<void> {
    await this.complete();
    if (this.state !== 'completed') return;
    await renameIntoPlace(this.tempPath, this.path);
    this.state = 'published';
  }

  async commit(): Promise<void> {
    await this.complete();
    await this.publish();
  }

  /** Closes and removes the temporary file. Safe in any state, also after a failure. */
  async discard(): Promise<void> {
    if (this.state === 'published' || this.state === 'discarded') return;
    if (this.state === 'open') {
      await Promise.allSettled(this.placed); // before closing the file they write to
      await this.handle.close().catch(() => undefined);
    }
    this.state = 'discarded';
    await unlink(this.tempPath).catch(() => undefined);
  }
}

// fs.write rejects lengths of 2 GiB and more: large tensors go in slices.
const MAX_WRITE = 1 << 30;

async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, Math.min(MAX_WRITE, bytes.length - done));
    done += bytesWritten;
  }
}
