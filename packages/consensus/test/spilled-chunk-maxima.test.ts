// The consensus csv's external sort (SpilledChunkMaxima): runs merged a few at a time while chunks keep coming, in
// several levels, and the end's merge give every key's group as if all had been held in memory at once.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SpilledChunkMaxima } from '../src/spilled-chunk-maxima.js';
import { frames, inMemory, spilled } from './spilled-maxima-cases.js';

const root = mkdtempSync(join(tmpdir(), 'spilled-maxima-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

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
