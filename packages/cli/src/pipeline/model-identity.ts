import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

/**
 * A cheap identity of a model folder/file for checkpoint compatibility: names and sizes of its files (not
 * their hashes — hashing an 11 GB ESM-2 3B on every run would cost more than it protects).
 */
export function describeModel(path: string): { name: string; files: [string, number][] } {
  const info = statSync(path);
  if (!info.isDirectory()) return { name: basename(path), files: [[basename(path), info.size]] };
  const files = readdirSync(path)
    .filter((f) => !f.startsWith('.'))
    .sort()
    .map((f) => [f, statSync(join(path, f)).size] as [string, number]);
  return { name: basename(path), files };
}
