// `mkdir -p` that fails instead of spinning: Node 20's `mkdir(dir, { recursive: true })` loops forever at 100% CPU
// where a parent reports ENOENT for a child it will never take (/proc/x, also /proc/self/x). Here each missing
// level is made on its own, so such a path fails at once with the plain ENOENT (or ENOTDIR, EACCES, EROFS…).
import { mkdirSync, statSync, type Stats } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** The folders to make, outermost first, after the deepest existing ancestor (which must be a folder). */
function missingLevels(dir: string, statOf: (path: string) => Stats | undefined): string[] {
  const missing: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    const info = statOf(d);
    if (info) {
      if (d === resolve(dir) && !info.isDirectory()) {
        throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${dir}'`), { code: 'EEXIST', syscall: 'mkdir', path: dir });
      }
      break;
    }
    missing.push(d);
    if (dirname(d) === d) break;
  }
  return missing.reverse();
}

const orMissing = (err: unknown): undefined => {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  throw err;
};

/** Creates `dir` and its missing parents; returns the first folder it created (undefined if `dir` existed). */
export async function makeDirectory(dir: string): Promise<string | undefined> {
  const infos = new Map<string, Stats | undefined>();
  // statOf is synchronous in missingLevels: gather the chain's stats first.
  for (let d = resolve(dir); ; d = dirname(d)) {
    const info = await stat(d).catch(orMissing);
    infos.set(d, info);
    if (info || dirname(d) === d) break;
  }
  const levels = missingLevels(dir, (path) => infos.get(path));
  for (const level of levels) await mkdir(level).catch(ignoreExisting);
  return levels[0];
}

/** makeDirectory, synchronously. */
export function makeDirectorySync(dir: string): string | undefined {
  const levels = missingLevels(dir, (path) => {
    try {
      return statSync(path);
    } catch (err) {
      return orMissing(err);
    }
  });
  for (const level of levels) {
    try {
      mkdirSync(level);
    } catch (err) {
      ignoreExisting(err);
    }
  }
  return levels[0];
}

/** Another process made the same folder meanwhile: fine. */
function ignoreExisting(err: unknown): void {
  if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
}
