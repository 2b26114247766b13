import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

/** Writes a whole file so that readers see either the old file or the complete new one (temp, fsync, rename). */
export function writeFileAtomic(path: string, text: string | Uint8Array): void {
  const temp = `${path}.tmp-${process.pid}`;
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(temp, path);
}
