// Positioned reads and atomic writes shared by every format in this package.
import { randomBytes } from 'node:crypto';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

// fs.read rejects lengths above 2 GiB - 1; big tensors are read in slices.
const MAX_READ = 1 << 30;

/** Fills `target` from `position` in the file; throws if the file ends first. */
export async function readExactly(fh: FileHandle, target: Uint8Array, position: number, what: string): Promise<void> {
  let done = 0;
  while (done < target.length) {
    const length = Math.min(MAX_READ, target.length - done);
    const { bytesRead } = await fh.read(target, done, length, position + done);
    if (bytesRead === 0) {
      throw new Error(`${what}: file ends after ${position + done} bytes, expected ${target.length - done} more`);
    }
    done += bytesRead;
  }
}

/** Writes all of `bytes` at the handle's current position. */
export async function writeAll(fh: FileHandle, bytes: Uint8Array): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const length = Math.min(MAX_READ, bytes.length - done);
    const { bytesWritten } = await fh.write(bytes, done, length);
    done += bytesWritten;
  }
}

/**
 * Writes a file so that readers see either the old file or the complete new
 * one: data goes to a temp file beside the target, is fsynced, then renamed
 * over it. On any error the temp file is removed and nothing is left behind.
 */
export async function writeFileAtomic(path: string, write: (fh: FileHandle) => Promise<void>): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fh = await open(temp, 'wx');
  try {
    await write(fh);
    await fh.sync();
    await fh.close();
  } catch (error) {
    await fh.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dirname(path));
}

/** fsync a directory so the rename itself is durable (best effort: not all platforms allow it). */
export async function syncDirectory(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // Windows and some filesystems refuse fsync on directories; the rename is still atomic.
  } finally {
    await fh?.close().catch(() => undefined);
  }
}
