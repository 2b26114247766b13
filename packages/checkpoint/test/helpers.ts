import { createHash } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const DIM = 5;

/** Deterministic vector of an item id (independent of any code under test). */
export function vectorOf(id: string, dim = DIM): Float32Array {
  const digest = createHash('sha256').update(id).digest();
  return Float32Array.from({ length: dim }, (_, k) => digest.readInt16LE(2 * k) / 1000);
}

export function record(index: number) {
  const id = `seq${index}`;
  return { index, id, vector: vectorOf(id) };
}

/** Fisher–Yates with a fixed LCG so failures reproduce. */
export function shuffled<T>(values: T[], seed = 7): T[] {
  const out = [...values];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'vnp-checkpoint-'));
}
