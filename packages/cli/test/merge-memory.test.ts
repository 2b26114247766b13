// Issue 46 ("flat memory"), merge: `virnucpro merge` of shard folders must not hold what grows with the input.
// Two synthetic shards of N and of 20N reads (each written by the real PredictionWriter, with its shard record
// list and run summary) are merged, and the live heap (after a full GC, sampled while the merge runs) must be the
// same within 10 % plus a little slack. Before, every shard's record list (an object and an id a record) and an
// owner slot per input record were held for the whole merge.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { PredictionWriter } from '@virnucpro/consensus';
import { writeMergedOutputs } from '../src/merge/merge-outputs.js';
import { loadShardSet } from '../src/merge/shard-set.js';
import { ShardRecordsWriter } from '../src/sharding/shard-records-file.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const root = mkdtempSync(join(tmpdir(), 'merge-memory-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const FRAME_NAMES = ['F1', 'F2', 'F3', 'R1', 'R2', 'R3'];
const MB = 1e6;

function liveHeap(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

/** Shard folders of `reads` 150-bp reads in all, every other read in the second shard, as predict --shard leaves them. */
async function writeShards(dir: string, reads: number): Promise<string[]> {
  let seed = 17;
  const rand = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
  const dirs = [join(dir, 'shard-1'), join(dir, 'shard-2')];
  const writers = await Promise.all(dirs.map((d) => PredictionWriter.create(d, { chunkFiles: true })));
  const lists = await Promise.all(dirs.map((d) => ShardRecordsWriter.create(d)));
  const frames = [0, 0];
  const records = [0, 0];
  for (let r = 1; r <= reads; r++) {
    const s = r % 2 === 1 ? 0 : 1;
    const id = `read_${r}`;
    writers[s].declareRecord(id, [{ start: 0, end: 150 }]);
    lists[s].add({ inputRecord: r, id });
    const ids: string[] = [];
    const probabilities: number[] = [];
    for (let f = 0, n = 1 + Math.floor(rand() * 6); f < n; f++) {
      const p = Math.fround(rand());
      ids.push(`${id}_chunk_1${FRAME_NAMES[f]}`);
      probabilities.push(Math.fround(1 - p), p);
    }
    await writers[s].writeBatch(ids, probabilities);
    frames[s] += ids.length;
    records[s]++;
  }
  for (let s = 0; s < 2; s++) {
    await writers[s].commit();
    await lists[s].publish();
    const shard = { index: s + 1, count: 2, inputFingerprint: 'synthetic', inputRecords: reads, records: records[s], bases: 150 * records[s], settings: { chunkLength: 500 } };
    writeFileSync(join(dirs[s], 'run_summary.json'), JSON.stringify({ status: 'complete', frames: frames[s], shard }));
  }
  return dirs;
}

/** Peak live heap above what was live before, to check and merge shards of `reads` reads. */
async function peakOfMerge(reads: number): Promise<number> {
  const dir = join(root, `reads-${reads}`);
  const shardDirs = await writeShards(dir, reads);
  const out = join(dir, 'merged');
  mkdirSync(out);
  const before = liveHeap();
  let done = false;
  const merging = (async () => {
    const files = await writeMergedOutputs(await loadShardSet(shardDirs), out);
    for (const file of files) await file.publish();
  })().finally(() => (done = true));
  let peak = before;
  while (!done) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    peak = Math.max(peak, liveHeap());
  }
  await merging;
  rmSync(dir, { recursive: true, force: true });
  return peak - before;
}

describe('virnucpro merge memory (issue 46)', () => {
  it('is flat: merging shards of 20× the reads takes the same live memory within 10 %', async () => {
    const reads = 3_000;
    await peakOfMerge(reads); // warm-up: code loaded once, not counted against the small merge
    const small = await peakOfMerge(reads);
    const large = await peakOfMerge(20 * reads);
    console.log(`live memory above the start: ${reads} reads ${(small / MB).toFixed(2)} MB, ${20 * reads} reads ${(large / MB).toFixed(2)} MB`);
    // Slack: what a small merge does not fill: each of the ~12 files read at once is read 64 KB at a time and split
    // into lines, and the small shards' files are smaller than that (2.0–2.2 MB at 20× and at 40× the reads).
    // Before: ~3 MB more at 20× (every shard's record list and an owner slot per input record).
    expect(large).toBeLessThan(1.1 * small + 1.5 * MB);
  });
});
