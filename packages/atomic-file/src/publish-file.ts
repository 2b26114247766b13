import { open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { namingFile } from './file-write-error.js';
import { syncDirectory } from './sync-directory.js';

/** Renames a file that is already on disk over `path` and makes the rename durable (fsync of the folder). */
export async function renameIntoPlace(from: string, path: string): Promise<void> {
  try {
    await rename(from, path);
  } catch (error) {
    throw namingFile(path, error);
  }
  await syncDirectory(dirname(path));
}

/**
 * Publishes a finished file that was written under a name of its own choosing rather than tempPathFor — a
 * download's resumable `<name>.part`, whose name must survive the process so that the next run resumes it:
 * fsync it, rename it over `path`, fsync the folder. Every failure names `path`.
 */
export async function publishFile(from: string, path: string): Promise<void> {
  try {
    const handle = await open(from, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw namingFile(path, error);
  }
  await renameIntoPlace(from, path);
}
