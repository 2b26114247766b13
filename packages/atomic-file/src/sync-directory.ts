import { openSync, fsyncSync, closeSync } from 'node:fs';
import { open } from 'node:fs/promises';

/** fsync a directory so that a rename in it is durable (best effort: not every platform opens directories). */
export async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    /* the data itself is already synced */
  }
}

export function syncDirectorySync(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* the data itself is already synced */
  }
}
