import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@virnucpro/atomic-file';

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_FORMAT = 'virnucpro-embedding-checkpoint';
export const MANIFEST_VERSION = 1;

export interface ShardRecord {
  /** File name inside the checkpoint directory. */
  file: string;
  sha256: string;
  bytes: number;
  /** Rows in the shard. */
  count: number;
  /** Smallest and largest input index in the shard (rows are sorted by index). */
  firstIndex: number;
  lastIndex: number;
  createdAt: string;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  version: number;
  createdAt: string;
  updatedAt: string;
  /** Identity of the model that produced the vectors (compared as canonical JSON). */
  model: unknown;
  inputFingerprint: string;
  dim: number | null;
  /** True once the whole input has been embedded. */
  complete: boolean;
  shards: ShardRecord[];
}

export function newManifest(model: unknown, inputFingerprint: string, dim: number | null): Manifest {
  const now = new Date().toISOString();
  return { format: MANIFEST_FORMAT, version: MANIFEST_VERSION, createdAt: now, updatedAt: now, model, inputFingerprint, dim, complete: false, shards: [] };
}

/** Reads and checks the manifest; null if there is none. */
export async function readManifest(dir: string): Promise<Manifest | null> {
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch (error) {
    throw new Error(`${path}: not valid JSON (${(error as Error).message}); delete the checkpoint or run with --force`);
  }
  if (manifest.format !== MANIFEST_FORMAT) throw new Error(`${path}: not a virnucpro checkpoint manifest (format '${String(manifest.format)}')`);
  if (manifest.version !== MANIFEST_VERSION) {
    throw new Error(`${path}: checkpoint manifest version ${manifest.version} is not supported (this build reads version ${MANIFEST_VERSION})`);
  }
  if (!Array.isArray(manifest.shards)) throw new Error(`${path}: "shards" must be an array`);
  return manifest;
}

/** Atomic: temp file, fsync, rename (a crash leaves the previous manifest intact). */
export async function writeManifest(dir: string, manifest: Manifest): Promise<void> {
  manifest.updatedAt = new Date().toISOString();
  const bytes = new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
  await writeFileAtomic(join(dir, MANIFEST_FILE), bytes);
}
