// Positioned reads and writes shared by every format in this package (atomic files: @virnucpro/atomic-file).
import type { FileHandle } from 'node:fs/promises';

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
