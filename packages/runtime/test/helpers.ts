import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EmbeddingResult, WorkerPluginSpec } from '../src/index.js';

export const HASH_MODEL = fileURLToPath(new URL('./fixtures/hash-model.mjs', import.meta.url));

export function hashModel(options: Record<string, unknown> = {}): WorkerPluginSpec {
  return { module: HASH_MODEL, export: 'createHashModel', options };
}

/** Protein-like strings of varied length, fixed by an LCG so runs reproduce. */
export function makeSequences(count: number, seed = 11): string[] {
  const alphabet = 'ACDEFGHIKLMNPQRSTVWY';
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: count }, (_, i) => {
    const length = 5 + (next() % 60);
    let s = `${i}:`;
    for (let k = 0; k < length; k++) s += alphabet[next() % alphabet.length];
    return s;
  });
}

export async function* asyncItems<T>(items: T[], counter?: { read: number }): AsyncGenerator<T> {
  for (const item of items) {
    if (counter) counter.read++;
    yield item;
  }
}

export async function collect<I>(run: AsyncIterable<EmbeddingResult<I>>): Promise<EmbeddingResult<I>[]> {
  const out: EmbeddingResult<I>[] = [];
  for await (const result of run) out.push(result);
  return out;
}

/** The run's output as bytes: index, item and vector of each result in delivered order. */
export function outputBytes(results: EmbeddingResult<unknown>[]): Buffer {
  return Buffer.concat(
    results.flatMap((r) => [Buffer.from(`${r.index}\t${JSON.stringify(r.item)}\n`), Buffer.from(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength)]),
  );
}

export async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'vnp-runtime-'));
}
