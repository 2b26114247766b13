// Issue 46 ("flat memory"): the main process's memory must not grow with the number of records or frames. The
// writer and the report are driven with N and 20N reads of 150 bp (one chunk each, 1–6 frames, as predict gives
// them), and the live heap (after a full GC, sampled while writing, while the consensus csv is written and while
// the report is made) must be the same within 10 % plus a little slack. Before the consensus was sorted in runs on
// disk, every chunk's maxima stayed in memory to the end (~120 bytes a chunk) and were sorted there (the
// smaller pair that fails there: 1.9 MB above the start for 5,000 reads, 24.8 MB for 100,000).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { PredictionWriter, writeReport } from '../src/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const root = mkdtempSync(join(tmpdir(), 'consensus-memory-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const FRAME_NAMES = ['F1', 'F2', 'F3', 'R1', 'R2', 'R3'];
const MB = 1e6;

/**
 * Live JS heap now, after a full collection. Buffers are left out: their count lags behind the collection (freed
 * ones are swept later), and what grew with the run was objects (per-chunk maxima, rows), not blocks.
 */
function liveBytes(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

/** The most live memory while `work` runs, sampled every few milliseconds (it awaits file writes). */
async function peakDuring(work: Promise<unknown>): Promise<number> {
  let done = false;
  let peak = 0;
  void work.finally(() => (done = true)).catch(() => undefined);
  while (!done) {
    await new Promise((resolve) => setTimeout(resolve, 15));
    peak = Math.max(peak, liveBytes());
  }
  await work;
  return peak;
}

/** Peak live memory above what was live before, to write `reads` reads' predictions and their report. */
async function peakOfRun(reads: number, runChunks: number): Promise<number> {
  const dir = join(root, `reads-${reads}`);
  const before = liveBytes();
  let peak = before;
  let seed = 11;
  const rand = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
  const writer = await PredictionWriter.create(dir, { chunkFiles: true, consensusRunChunks: runChunks });
  let frames = 0;
  for (let r = 1; r <= reads; r++) {
    const id = `read_${r}`;
    writer.declareRecord(id, [{ start: 0, end: 150 }]);
    const ids: string[] = [];
    const probabilities: number[] = [];
    for (let f = 0, n = 1 + Math.floor(rand() * 6); f < n; f++) {
      const p = Math.fround(rand());
      ids.push(`${id}_chunk_1${FRAME_NAMES[f]}`);
      probabilities.push(Math.fround(1 - p), p);
    }
    frames += ids.length;
    await writer.writeBatch(ids, probabilities);
    if (r % Math.ceil(reads / 20) === 0) peak = Math.max(peak, liveBytes());
  }
  peak = Math.max(peak, await peakDuring(writer.commit()));
  writeFileSync(join(dir, 'run_summary.json'), JSON.stringify({ status: 'complete', sequences: reads, frames }));
  // A table of at most 1,000 records, so that both runs have more records than the report keeps.
  peak = Math.max(peak, await peakDuring(writeReport(dir, { maxRecords: 1_000 })));
  rmSync(dir, { recursive: true, force: true });
  return peak - before;
}

describe('main-process memory (issue 46)', () => {
  it('is flat: writing and reporting 20× the reads takes the same live memory within 10 %', async () => {
    const reads = 5_000;
    const runChunks = 2_000; // scratch runs of 2,000 chunks, so both sizes sort on disk
    await peakOfRun(reads, runChunks); // warm-up: code and caches loaded once, not counted against the small run
    const small = await peakOfRun(reads, runChunks);
    const large = await peakOfRun(20 * reads, runChunks);
    console.log(`live memory above the start: ${reads} reads ${(small / MB).toFixed(2)} MB, ${20 * reads} reads ${(large / MB).toFixed(2)} MB`);
    // Slack: fixed-size things a small run does not fill (the report reads its files a megabyte at a time and
    // splits each megabyte into lines, ~1.3 MB live; the small run's files are a few hundred KB), and what a sample
    // catches in flight: 4.5 MB once on a 2-core machine under load (a clean-clone CI run beside other tests).
    // Measured: ~1.3–1.7 MB vs ~2.6 MB; before the consensus runs: 1.9 MB vs 24.8 MB, which this still refuses.
    expect(large).toBeLessThan(1.1 * small + 6 * MB);
  });
});
