// SpilledChunkMaxima with run files that take a while to write (as on a loaded machine): a merge beside the run
// that ends while a spill is still writing must not take that spill's run, half written, as one of its own (the
// 2026-11-29 CI saw a chunk's frames 3 instead of 4: its run had been merged while still empty).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { frames, inMemory, spilled } from './spilled-maxima-cases.js';

// Every run file's write waits a few milliseconds once its file exists: spills and merges then overlap.
vi.mock('../src/consensus-run-file.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/consensus-run-file.js')>();
  let turn = 0;
  return {
    ...real,
    writeConsensusRun: async (path: string, batches: Parameters<typeof real.writeConsensusRun>[1], block?: Buffer) => {
      const wait = [1, 7, 3, 12][turn++ % 4];
      const slowed = (async function* () {
        await new Promise((resolve) => setTimeout(resolve, wait));
        yield* batches;
      })();
      return real.writeConsensusRun(path, slowed, block);
    },
  };
});

const root = mkdtempSync(join(tmpdir(), 'spilled-maxima-race-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('SpilledChunkMaxima, slow run files', () => {
  it.each([
    { runChunks: 1, fanIn: 2 },
    { runChunks: 2, fanIn: 2 },
    { runChunks: 3, fanIn: 3 },
  ])('runs of $runChunks merged $fanIn at a time while spills are written: the groups held in memory', async ({ runChunks, fanIn }) => {
    const rows = frames(60, 11 + runChunks);
    const dir = mkdtempSync(join(root, 'race-'));
    const { groups, maxima } = await spilled(rows, dir, runChunks, fanIn);
    expect(groups).toEqual(inMemory(rows));
    expect(maxima.mergesBeside).toBeGreaterThan(fanIn);
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);
});
