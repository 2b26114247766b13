import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { AtomicFile } from './atomic-file.js';
import { namingFile } from './file-write-error.js';
import { injectedWriteFault } from './injected-faults.js';
import { syncDirectorySync } from './sync-directory.js';
import { tempPathFor } from './temp-name.js';

/**
 * Writes a whole file so that readers see the old file or the complete new one, never a part. `content` is
 * the bytes or text, or a function that writes them to the AtomicFile (large or streamed content).
 */
export async function writeFileAtomic(path: string, content: string | Uint8Array | ((file: AtomicFile) => Promise<void>)): Promise<void> {
  const file = await AtomicFile.create(path);
  try {
    if (typeof content === 'function') await content(file);
    else await file.write(content);
    await file.commit();
  } catch (error) {
    await file.discard();
    throw namingFile(path, error);
  }
}

/** writeFileAtomic for callers that cannot await (same temporary name, fsync and rename). */
export function writeFileAtomicSync(path: string, content: string | Uint8Array): void {
  const temp = tempPathFor(path);
  try {
    const fd = openSync(temp, 'wx');
    try {
      const fault = injectedWriteFault(path);
      if (fault) throw fault;
      writeSync(fd, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw namingFile(path, error);
  }
  syncDirectorySync(dirname(path));
}
