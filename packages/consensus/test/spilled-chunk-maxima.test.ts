// The consensus csv's external sort (SpilledChunkMaxima): runs merged a few at a time while chunks keep coming, in
// several levels, and the end's merge give every key's group as if all had been held in memory at once.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChunkMaxima, type ChunkConsensus } from '../src/consensus.js';
import { SpilledChunkMaxima } from '../src/spilled-chunk-maxima.js';

const root = mkdtempSync(join(tmpdir(), 'spilled-maxima-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Frame ids of `keys` chunks in a random order, each chunk's frames scattered (so one key lands in several runs). */
function frames(keys: number, seed: number): { id: string; score1: number; score2: number }[] {
  let state = seed;
  const rand = () => ((state = (state * 48271) % 2147483647) / 2147483647);
  const names = ['seq', 'séq', 'sé𝔮', 'SEQ', 'seq_10', 'seq_2'];
  const out: { id: string; score1: number; score2: number }[] = [];
  for (let frame = 0; frame < 3 * keys; frame++) {
    const k = Math.floor(rand() * keys);
    const p = rand() < 0.05 ? NaN : Math.fround(rand());
    out.push({ id: `${names[k % names.length]}${k}_chunk_${1 + (k % 5)}${frame % 2 ? 'F1' : 'R2'}`, score1: Math.fround(1 - p), score2: p });
  }
  return out;
}

async function spilled(rows: ReturnType<typeof frames>, dir: string, runChunks: number, fanIn: number) {
  const maxima = new SpilledChunkMaxima(dir, 'original', runChunks, fanIn);
  for (const r of rows) {
    maxima.add(r.id, r.score1, r.score2);
    if (maxima.full) await maxima.spill();
  }
  const groups: ChunkConsensus[] = [];
  for await (const batch of maxima.sortedBatches()) groups.push(...batch);
  return { groups, maxima };
}

function inMemory(rows: ReturnType<typeof frames>): ChunkConsensus[] {
  const all = new ChunkMaxima('original');
  for (const r of rows) all.add(r.id, r.score1, r.score2);
  return [...all.sortedGroups()];
}

describe('SpilledChunkMaxima', () => {
  it.each([
    { runChunks: 1, fanIn: 2 },
    { runChunks: 2, fanIn: 3 },
    { runChunks: 3, fanIn: 4 },
    { runChunks: 7, fanIn: 5 },
  ])('runs of $runChunks chunks merged $fanIn at a time beside the input, in levels: the groups held in memory, no file left', async ({ runChunks, fanIn }) => {
    const rows = frames(400, 7 + runChunks);
    const dir = mkdtempSync(join(root, 'levels-'));
    const { groups, maxima } = await spilled(rows, dir, runChunks, fanIn);
    expect(groups).toEqual(inMemory(rows));
    // Enough runs that merges ran while chunks kept coming (several levels of them at these sizes).
    expect(maxima.mergesBeside).toBeGreaterThan(fanIn);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('discarded while merges are under way: every run file removed, none written after', async () => {
    const rows = frames(300, 5);
    const dir = mkdtempSync(join(root, 'discard-'));
    const maxima = new SpilledChunkMaxima(dir, 'original', 1, 2);
    for (const r of rows) {
      maxima.add(r.id, r.score1, r.score2);
      if (maxima.full) await maxima.spill();
    }
    await maxima.discard();
    expect(readdirSync(dir)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a merge of fewer than two runs', () => {
    expect(() => new SpilledChunkMaxima(root, 'original', 10, 1)).toThrow(RangeError);
  });
});
