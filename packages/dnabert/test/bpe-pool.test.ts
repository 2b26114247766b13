import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BpeTokenizer } from '../src/index.js';
import { BpePool, BpeRefusal, bpePoolThreads } from '../src/bpe-pool.js';

// The worker is TypeScript: bundled here from src/ (as the CLI bundle does), so the test runs the source it checks.
const tokenizerPath = fileURLToPath(new URL('../../../test-data/dnabert/tokenizer.json', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'bpe-pool-'));
let workerUrl: URL;
let tokenizer: BpeTokenizer;

beforeAll(async () => {
  const outfile = join(dir, 'bpe-worker.mjs');
  await build({ entryPoints: [fileURLToPath(new URL('../src/bpe-worker.ts', import.meta.url))], bundle: true, platform: 'node', format: 'esm', outfile, logLevel: 'silent' });
  workerUrl = pathToFileURL(outfile);
  tokenizer = await BpeTokenizer.fromFile(tokenizerPath);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Deterministic pseudo-random sequences: mostly ACGT, some lower case, N, other letters, whitespace, non-ASCII, empty. */
function randomSequences(count: number, seed: number): string[] {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const alphabet = 'ACGTACGTACGTACGTacgtNNRYX- \té→';
  return Array.from({ length: count }, () => {
    const length = rand() < 0.1 ? 0 : Math.floor(rand() * 600);
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(rand() * alphabet.length)];
    return out;
  });
}

describe('BpePool', () => {
  it('gives the main thread tokenizer\'s ids, chunk by chunk in the order sent', async () => {
    const pool = await BpePool.start({ tokenizerPath, threads: 3, workerUrl });
    try {
      const sequences = randomSequences(2_000, 7);
      // Chunks of uneven sizes (1 to 97, and one empty), all in flight at once across three threads.
      const chunks: string[][] = [[]];
      for (let at = 0, k = 0; at < sequences.length; k++) {
        const size = 1 + ((k * 37) % 97);
        chunks.push(sequences.slice(at, at + size));
        at += size;
      }
      const results = await Promise.all(chunks.map((chunk) => pool.encode(chunk)));
      expect(results.map((r) => r.length)).toEqual(chunks.map((c) => c.length));
      const ids = results.flat();
      expect(ids.length).toBe(sequences.length);
      sequences.forEach((sequence, i) => expect([...ids[i]], `sequence ${i}`).toEqual([...tokenizer.encode(sequence)]));
    } finally {
      await pool.close();
    }
  });

  it('names a refused sequence by its index in the chunk, with the tokenizer\'s own message', async () => {
    const pool = await BpePool.start({ tokenizerPath, threads: 1, workerUrl });
    try {
      const bad = null as unknown as string; // no string: what the tokenizer throws on
      let expected = '';
      try {
        tokenizer.encode(bad);
      } catch (error) {
        expected = (error as Error).message;
      }
      expect(expected).not.toBe('');
      const refused = await pool.encode(['ACGT', 'GATTACA', bad, 'TT']).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(BpeRefusal);
      expect(refused).toMatchObject({ index: 2, message: expected });
      // The pool goes on with the next chunk.
      expect([...(await pool.encode(['ACGT']))[0]]).toEqual([...tokenizer.encode('ACGT')]);
    } finally {
      await pool.close();
    }
  });

  it('closes: chunks not answered are rejected, later ones refused', async () => {
    const pool = await BpePool.start({ tokenizerPath, threads: 2, workerUrl });
    const inFlight = pool.encode(randomSequences(500, 3)).then(() => 'answered', (e: Error) => e.message);
    await pool.close();
    expect(await inFlight).toBe('BpePool: closed');
    await expect(pool.encode(['ACGT'])).rejects.toThrow('BpePool: closed');
  });

  it('fails to start with the load error of a missing tokenizer.json', async () => {
    await expect(BpePool.start({ tokenizerPath: join(dir, 'missing.json'), threads: 1, workerUrl })).rejects.toThrow('missing.json');
  });

  it('leaves a core to the main thread, at most 4 threads and at least 1', () => {
    expect([1, 2, 3, 5, 16].map(bpePoolThreads)).toEqual([1, 1, 2, 4, 4]);
  });
});
