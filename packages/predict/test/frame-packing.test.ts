// predict's packing (framePacking) on the frames of 150-bp reads, through predict's own pieces: records →
// framesFrom → runEmbedding with predict's read-ahead, into an embedder that records each batch. Without carry-over
// a window of ~3.2 batches ended in one ~20 %-full batch (run_summary.json on an H100, 1 M frames: 0.802 at 32K).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runEmbedding, serialEmbedder } from '@virnucpro/runtime';
import { reverseComplement, type SequenceRecord } from '@virnucpro/sixframe';
import { framePacking, framesFrom, readAheadFor, type FrameItem, type FramePacking } from '../src/index.js';

const genome = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../../test-data/${name}`, import.meta.url)), 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('>'))
    .join('')
    .toUpperCase();
const genomes = [genome('lambda_virus.fa'), genome('ecoli536_1-30000.fa')];

/** 150-bp reads at seeded positions of phage lambda and the E. coli slice, either strand (make_reads.py's way). */
function reads(count: number): SequenceRecord[] {
  let x = 5;
  const next = () => { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x / 2 ** 32; };
  return Array.from({ length: count }, (_, i) => {
    const source = genomes[i % genomes.length];
    const start = Math.floor(next() * (source.length - 150));
    const read = source.slice(start, start + 150);
    return { id: `read${i}`, sequence: next() < 0.5 ? reverseComplement(read) : read };
  });
}
const records = reads(26_000); // ~40,000 frames of ~51 ESM-2 tokens: ~2 M tokens, 31 batches at 64K

async function* pulled<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

/** The ESM-2 tokens of each batch predict's run submits, in submission order. */
async function batchTokens(pack: FramePacking & { carry?: boolean }): Promise<number[]> {
  const tokens: number[] = [];
  const pool = serialEmbedder<FrameItem>(async (batch) => {
    tokens.push(batch.items.reduce((sum, item) => sum + item.tokens, 0));
    return batch.items.map(() => new Float32Array(1));
  });
  const run = runEmbedding({ items: framesFrom(pulled(records), { chunkLength: 300 }), pack, maxReadAhead: readAheadFor(pack.window), pool });
  for await (const result of run) void result;
  return tokens;
}

describe('framePacking', () => {
  it('packs on ESM-2 tokens over the window the budget asks for, leaving carry-over on (runEmbedding\'s default)', () => {
    expect(framePacking(4096)).toEqual({ tokenBudget: 4096, window: 2000, tokenCount: expect.any(Function) });
    expect(framePacking(65536)).toMatchObject({ window: 4096 });
    expect(framePacking(32768, 500).window).toBe(500);
    expect(framePacking(4096).tokenCount({ id: 'f', nucleotide: 'ATGAAA', protein: 'MK' })).toBe(4);
  });

  it('fills ≥ 97 % of every batch but the last part-filled one on frames of 150-bp reads at 16K, 32K and 64K', async () => {
    for (const budget of [16384, 32768, 65536]) {
      const tokens = await batchTokens(framePacking(budget));
      const fills = tokens.map((t) => t / budget).sort((a, b) => a - b);
      expect(fills.slice(1).every((fill) => fill >= 0.97), `${budget}: ${fills.slice(0, 3).join(', ')}`).toBe(true);
      expect(tokens.length).toBeLessThanOrEqual(Math.ceil(tokens.reduce((s, t) => s + t, 0) / budget) + 1);
    }
  });

  it('without carry-over the same frames left a ~20 %-full batch per window at 32K', async () => {
    const budget = 32768;
    const tokens = await batchTokens({ ...framePacking(budget), carry: false });
    const total = tokens.reduce((s, t) => s + t, 0);
    expect(total / (tokens.length * budget)).toBeLessThan(0.85);
  });
});
