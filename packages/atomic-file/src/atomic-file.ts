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
 *
 * With `syncEveryBytes`, each time that many more bytes have been written a data sync (fdatasync) starts beside the
 * writes, one at a time, nobody waiting for it: the disk takes a large file while it is written, and `complete()`'s
 * fsync finds little left to do. Without it a run's whole output stayed in the page cache until the end (the
 * kernel's own writeback waits for gigabytes), so the run's last step wrote it all: ~0.25 s of a 2.5-s `embed
 * dnabert` run's 467 MB on an H200 host.
 */
export class AtomicFile implements StagedOutput {
  private state: 'open' | 'completed' | 'published' | 'discarded' = 'open';
  private writing: Promise<void> = Promise.resolve();
  /** writeAt's writes under way. */
  private readonly placed = new Set<Promise<void>>();
  /** Bytes written since the last data sync started (with syncEveryBytes). */
  private unsynced = 0;
  /** The data sync under way, if any; its failure is complete()'s. */
  private syncing: Promise<unknown> | undefined;

  private constructor(
    readonly path: string,
    readonly tempPath: string,
    private readonly handle: FileHandle,
    private readonly syncEveryBytes: number,
  ) {}

  /** `options.syncEveryBytes`: start a data sync beside the writes each time that many bytes more are written. */
  static async create(path: string, options: { syncEveryBytes?: number } = {}): Promise<AtomicFile> {
    const tempPath = tempPathFor(path);
    try {
      return new AtomicFile(path, tempPath, await open(tempPath, 'wx'), options.syncEveryBytes ?? 0);
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
      if (typeof data === 'string') this.written((await this.handle.write(data, null, 'utf8')).bytesWritten);
      else this.written(await writeAll(this.handle, data));
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
      this.written(data.length);
    })();
    this.placed.add(write);
    const settled = () => this.placed.delete(write);
    write.then(settled, settled);
    return write.catch((error: unknown) => {
      throw namingFile(this.path, error);
    });
  }

  /** Counts bytes handed to the OS; starts a data sync when syncEveryBytes more are written and none is under way. */
  private written(bytes: number): void {
    if (this.syncEveryBytes <= 0) return;
    this.unsynced += bytes;
    if (this.unsynced < this.syncEveryBytes || this.syncing) return;
    this.unsynced = 0;
    const sync = this.handle.datasync();
    this.syncing = sync;
    // A failure is kept for complete() (awaiting this.syncing rethrows it); a later sync may start once it settles.
    sync.then(
      () => {
        if (this.syncing === sync) this.syncing = undefined;
      },
      () => undefined,
    );
  }

  /** Everything written is on disk (fsync) and the file closed, still under its temporary name. */
  async complete(): Promise<void> {
    if (this.state !== 'open') return;
    try {
      await this.writing;
      await Promise.all(this.placed);
      await this.syncing;
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
      await Promise.allSettled([...this.placed, this.syncing]); // before closing the file they use
      await this.handle.close().catch(() => undefined);
    }
    this.state = 'discarded';
    await unlink(this.tempPath).catch(() => undefined);
  }
}

// fs.write rejects lengths of 2 GiB and more: large tensors go in slices.
const MAX_WRITE = 1 << 30;

async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<number> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, Math.min(MAX_WRITE, bytes.length - done));
    done += bytesWritten;
  }
  return done;
}
