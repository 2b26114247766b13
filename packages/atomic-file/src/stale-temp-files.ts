import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseTempName } from './temp-name.js';

/**
 * Removes the temporary files (tempPathFor names) that killed processes left in `dir` (SIGKILL, power
 * loss): those whose writer no longer runs. A live writer's files, this process's included, are kept.
 * Returns the names removed.
 */
export async function removeStaleTempFiles(dir: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir)) {
    const temp = parseTempName(name);
    if (!temp || temp.pid === process.pid || isAlive(temp.pid)) continue;
    await rm(join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
