import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** JSON with object keys sorted at every level, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** sha256 of a file's bytes, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Fingerprint of the input files: sha256 over each file's content hash, in the given order.
 * Content, not paths or mtimes, so moving the input is fine but any byte changed is detected.
 */
export async function fingerprintFiles(paths: string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const path of paths) hash.update(`${await sha256File(path)}\n`);
  return `sha256:${hash.digest('hex')}`;
}

/** Fingerprint of any JSON-able value (e.g. input settings that change what is embedded). */
export function fingerprintValue(value: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;
}
