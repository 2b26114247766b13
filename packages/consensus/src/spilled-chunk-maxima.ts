// The consensus csv needs every chunk's maxima and lists them sorted by key, so its rows cannot be written as
// records finish. Held in memory to the end, the maxima grew the main process by ~120 bytes a chunk, and sorting
// them at the end by as much again (a 1.4M-frame run of reads: 53 MB before the csv, 160 MB while writing it).
// Here they are gathered in memory up to `runChunks` chunks, then sorted and written to a scratch run file beside
// the output (an external sort); at the end the runs are merged by the same code point order, and groups of one key
// combined (frames of one chunk need not be adjacent: the same key can be in two runs). Once MERGE_FAN_IN runs of one
// size have piled up, they are merged into one while the run goes on, so that the end has one pass to make, not one
// more for every MERGE_FAN_IN runs (10^8 frames of reads: ~4,000 runs, a pass over every chunk saved at the end).
// Memory: one run's maxima plus a block per merged run, whatever the number of chunks. Run files have the atomic
// writer's temporary names, so a killed run's leftovers are removed as its other temporary files are.

import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { tempPathFor } from '@virnucpro/atomic-file';
import { ChunkMaxima, compareCodePoints, nanMax, type ChunkConsensus, type ConsensusKeyRule } from './consensus.js';
import { ConsensusRunReader, consensusRunBlock, writeConsensusRun } from './consensus-run-file.js';

/**
 * Chunks held in memory before they are written out as a sorted run: ~2.5 MB of maxima (~150 bytes a chunk: its
 * slot, its key and the frame id the key is cut from, its Map entry). 100,000 until 2026-11-28: ~15 MB that a run
 * of 150-bp reads (a chunk a read, ~1.5 frames) reached only past ~150,000 frames, so the live heap, and V8's heap
 * sized as a multiple of it, grew with the input up to there (docs/benchmarks/scaling.md). Past MERGE_FAN_IN runs
 * (~2.1M chunks) they are merged MERGE_FAN_IN at a time while the run goes on, so the end's merge stays one pass.
 */
export const DEFAULT_RUN_CHUNKS = 16_384;
/**
 * Runs merged at once (one open file and one 32 KiB block each: 4 MiB at most, one merge at a time); more are merged
 * in passes beside the run (mergeBeside). 32 until
 * 2026-11-28: with runs of 16,384 chunks a 1M-frame run of 150-bp reads (~650,000 chunks, 40 runs) took a second
 * pass, written to disk and read back after the last frame (host pipeline at 1M frames: the files written in 1.3–1.9
 * s instead of 2.5–2.8 s, the same bytes).
 */
export const MERGE_FAN_IN = 128;

/** A run size is a positive whole number of chunks (RangeError otherwise). */
export function assertRunChunks(runChunks: number): void {
  if (!(Number.isSafeInteger(runChunks) && runChunks > 0)) throw new RangeError(`consensus run size must be a positive integer, got ${runChunks}`);
}

/** A sorted run file and how many merges made it (0: spilled from memory; n: from `fanIn` runs of level n − 1 or less). */
interface Run {
  path: string;
  level: number;
}

export class SpilledChunkMaxima {
  private current: ChunkMaxima;
  private readonly runs: Run[] = [];
  /** What every spilled run is encoded in, one run after the other (made at the first). */
  private block: Buffer | undefined;
  /** The merge under way while the run goes on (one at a time), and its failure, reported at the next call. */
  private merging: Promise<void> | undefined;
  private mergeFailure: unknown;
  private mergedBeside = 0;
  private discarded = false;

  constructor(
    private readonly dir: string,
    private readonly rule: ConsensusKeyRule = 'original',
    private readonly runChunks = DEFAULT_RUN_CHUNKS,
    /** Runs merged at once (MERGE_FAN_IN; the tests take a few, to make several levels of small runs). */
    private readonly fanIn = MERGE_FAN_IN,
  ) {
    assertRunChunks(runChunks);
    if (!(Number.isSafeInteger(fanIn) && fanIn >= 2)) throw new RangeError(`a merge takes at least 2 runs, got ${fanIn}`);
    this.current = new ChunkMaxima(rule);
  }

  add(id: string, score1: number, score2: number): void {
    this.current.add(id, score1, score2);
  }

  /** Runs merged into one while the run went on, so far (for tests and benchmarks). */
  get mergesBeside(): number {
    return this.mergedBeside;
  }

  /** True once the chunks in memory make a run: await `spill()`. */
  get full(): boolean {
    return this.current.size >= this.runChunks;
  }

  /**
   * Writes the chunks in memory out as a sorted run and forgets them; once MERGE_FAN_IN runs of one level are there,
   * starts merging them into one beside the run (not awaited here; a failure is thrown by the next call).
   */
  async spill(): Promise<void> {
    this.throwMergeFailure();
    const path = tempPathFor(join(this.dir, 'consensus-run'));
    try {
      await writeConsensusRun(path, inBatches(this.current.sortedGroups()), (this.block ??= consensusRunBlock()));
    } catch (error) {
      await unlink(path).catch(() => undefined);
      throw error;
    }
    // Listed only once whole: a merge beside that ends during the write must not take it half written (its groups
    // were lost so: a chunk's frames 3 instead of 4 in the 2026-11-29 CI).
    this.runs.push({ path, level: 0 });
    this.current = new ChunkMaxima(this.rule);
    // Discarded while the run was being written (a stopped run's cleanup does not wait for a batch in flight).
    if (this.discarded) await this.discard();
    else this.mergeBeside();
  }

  /**
   * Every chunk's group in key order (pandas' groupby order), one group a key, in batches of up to GROUP_BATCH; the
   * run files are removed once read. Call once, after the last `add`.
   */
  async *sortedBatches(): AsyncIterableIterator<ChunkConsensus[]> {
    await this.mergesDone();
    if (this.runs.length === 0) {
      yield* inBatches(this.current.sortedGroups());
      return;
    }
    if (this.current.size > 0) {
      await this.spill();
      await this.mergesDone();
    }
    if (this.runs.length > this.fanIn) {
      // One pass over the smallest runs, just enough of them that the last merge takes what is left.
      const smallest = [...this.runs].sort((a, b) => a.level - b.level).slice(0, this.runs.length - this.fanIn + 1);
      await this.merge(smallest, (this.block ??= consensusRunBlock()));
    }
    yield* mergeRuns(this.runs.splice(0).map((run) => run.path));
  }

  /** Removes every run file not yet merged (after a failure, or when the output is dropped). */
  async discard(): Promise<void> {
    this.discarded = true;
    while (this.merging) await this.merging;
    for (const run of this.runs.splice(0)) await unlink(run.path).catch(() => undefined);
  }

  /** Starts merging the oldest `fanIn` runs of a level that has them, unless a merge is under way. */
  private mergeBeside(): void {
    if (this.merging) return;
    const counts = new Map<number, number>();
    for (const run of this.runs) counts.set(run.level, (counts.get(run.level) ?? 0) + 1);
    const level = [...counts].find(([, count]) => count >= this.fanIn)?.[0];
    if (level === undefined) return;
    const some = this.runs.filter((run) => run.level === level).slice(0, this.fanIn);
    // Its own block: the spills go on beside it with theirs.
    this.merging = this.merge(some, consensusRunBlock())
      .then(() => void this.mergedBeside++, (error: unknown) => void (this.mergeFailure ??= error))
      .finally(() => {
        this.merging = undefined;
        if (!this.discarded && this.mergeFailure === undefined) this.mergeBeside();
      });
  }

  /** Merges `some` of the runs into one run of the next level (their files removed once read). */
  private async merge(some: readonly Run[], block: Buffer): Promise<void> {
    const path = tempPathFor(join(this.dir, 'consensus-run'));
    const merged: Run = { path, level: Math.max(...some.map((run) => run.level)) + 1 };
    for (const run of some) this.runs.splice(this.runs.indexOf(run), 1);
    this.runs.push(merged);
    await writeConsensusRun(path, mergeRuns(some.map((run) => run.path)), block);
    if (this.discarded) await unlink(path).catch(() => undefined);
  }

  /** Once the merges under way (one may start the next) are over; throws the first one's failure. */
  private async mergesDone(): Promise<void> {
    while (this.merging) await this.merging;
    this.throwMergeFailure();
  }

  private throwMergeFailure(): void {
    if (this.mergeFailure !== undefined) throw this.mergeFailure;
  }
}

/**
 * Groups handed on at a time. A merge that awaited each group three times over (the run's read, the generator, the
 * file's write) took most of the end of a run: host pipeline at 1M frames (~650,000 chunks, 2 cores), the files
 * written in 0.50–0.57 s with batches, reads without awaits and one heap sift a group, against 1.18–1.23 s.
 */
export const GROUP_BATCH = 4096;

/** The groups of sorted run files in key order, equal keys combined, in batches; each file is removed once read. */
async function* mergeRuns(paths: readonly string[]): AsyncIterableIterator<ChunkConsensus[]> {
  const readers: ConsensusRunReader[] = [];
  try {
    for (const path of paths) readers.push(await ConsensusRunReader.open(path));
    const heads = new HeadHeap();
    for (let r = 0; r < readers.length; r++) {
      const group = await readers[r].next();
      if (group) heads.push({ group, run: r });
    }
    let batch: ChunkConsensus[] = [];
    let held: ChunkConsensus | undefined;
    for (let head = heads.top(); head; head = heads.top()) {
      const { group, run } = head;
      if (held && held.key === group.key) held = combined(held, group);
      else {
        if (held) batch.push(held);
        held = group;
        if (batch.length === GROUP_BATCH) {
          yield batch;
          batch = [];
        }
      }
      const next = readers[run].nextBuffered() ?? (await readers[run].next());
      if (next) heads.replaceTop({ group: next, run });
      else heads.pop();
    }
    if (held) batch.push(held);
    if (batch.length > 0) yield batch;
  } finally {
    for (const reader of readers) await reader.close().catch(() => undefined);
    for (const path of paths) await unlink(path).catch(() => undefined);
  }
}

/** Groups in batches of GROUP_BATCH. */
function* inBatches(groups: Iterable<ChunkConsensus>): IterableIterator<ChunkConsensus[]> {
  let batch: ChunkConsensus[] = [];
  for (const group of groups) {
    batch.push(group);
    if (batch.length === GROUP_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** One group from two of the same key: maxima over both (NaN skipped), frames added. */
function combined(a: ChunkConsensus, b: ChunkConsensus): ChunkConsensus {
  const maxScore1 = nanMax(a.maxScore1, b.maxScore1);
  const maxScore2 = nanMax(a.maxScore2, b.maxScore2);
  return { key: a.key, isVirus: maxScore2 >= maxScore1, maxScore1, maxScore2, frames: a.frames + b.frames };
}

interface Head {
  group: ChunkConsensus;
  run: number;
}

/** A binary min-heap of the runs' next groups, by key (code point order). */
class HeadHeap {
  private readonly items: Head[] = [];

  /** The least, left in place. */
  top(): Head | undefined {
    return this.items[0];
  }

  push(head: Head): void {
    const items = this.items;
    let i = items.push(head) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!less(items[i], items[parent])) break;
      [items[i], items[parent]] = [items[parent], items[i]];
      i = parent;
    }
  }

  /** Removes the least. */
  pop(): void {
    const last = this.items.pop();
    if (this.items.length > 0 && last !== undefined) this.replaceTop(last);
  }

  /** Puts `head` in the least one's place: one sift where a pop and a push made two. */
  replaceTop(head: Head): void {
    const items = this.items;
    items[0] = head;
    for (let i = 0; ; ) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < items.length && less(items[left], items[least])) least = left;
      if (right < items.length && less(items[right], items[least])) least = right;
      if (least === i) break;
      [items[i], items[least]] = [items[least], items[i]];
      i = least;
    }
  }
}

function less(a: Head, b: Head): boolean {
  return compareCodePoints(a.group.key, b.group.key) < 0;
}
