// The duplicate-id check in bounded memory. RecordIdSet holds 16–32 bytes a read until the count ends: 1.6 GB (2.4 GB
// while it doubles) for the 6.5·10^7 reads of 10^8 frames. Here it holds at most `perRun` ids; then their hashes are
// sorted and written to a scratch file (8 bytes an id) and the set starts again. A duplicate within a run is found
// as the record comes, as before; one across runs when the count ends, by merging the runs' sorted hashes (then the
// input is read again for the records behind a hash that two runs share, as for any hash match).
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordIdSet } from './record-id-set.js';

/** Ids held in memory before their hashes go to disk: ~25 MB of table at most. */
export const IDS_PER_RUN = 1 << 20;
/** Hashes read at a time from each run while they are merged (512 KiB a run). */
const READ_HASHES = 1 << 16;

export class SpilledRecordIds {
  private readonly set = new RecordIdSet();
  private dir: string | undefined;
  private runs = 0;

  constructor(private readonly perRun = IDS_PER_RUN) {}

  /** As RecordIdSet.addOrFind, among the ids of the current run; past `perRun` ids the run goes to disk. */
  addOrFind(id: string, record: number): number | undefined {
    const first = this.set.addOrFind(id, record);
    if (first === undefined && this.set.count >= this.perRun) this.spill();
    return first;
  }

  /**
   * The hashes that two runs share, in increasing order (none when every id fit in one run): a match is a duplicate
   * only once the ids behind it are compared.
   */
  sharedHashes(): bigint[] {
    if (this.runs === 0) return [];
    const sources = [...Array.from({ length: this.runs }, (_, i) => fileSource(join(this.dir!, `run-${i}`))), arraySource(this.set.sortedHashes())];
    try {
      return sharedOf(sources);
    } finally {
      for (const source of sources) source.close();
    }
  }

  /** Removes the scratch files and forgets every id. */
  dispose(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
    this.runs = 0;
    this.set.clear();
  }

  private spill(): void {
    this.dir ??= mkdtempSync(join(tmpdir(), 'virnucpro-ids-'));
    const hashes = this.set.sortedHashes();
    writeFileSync(join(this.dir, `run-${this.runs++}`), new Uint8Array(hashes.buffer, hashes.byteOffset, hashes.byteLength));
    this.set.clear();
  }
}

/** Sorted hashes read one at a time. */
interface HashSource {
  /** The current hash, or undefined at the end. */
  head: bigint | undefined;
  advance(): void;
  close(): void;
}

function arraySource(hashes: BigUint64Array): HashSource {
  let i = 0;
  return {
    head: hashes[0],
    advance() {
      this.head = ++i < hashes.length ? hashes[i] : undefined;
    },
    close() {},
  };
}

function fileSource(path: string): HashSource {
  const fd = openSync(path, 'r');
  const buffer = new BigUint64Array(READ_HASHES);
  const bytes = new Uint8Array(buffer.buffer);
  let length = 0;
  let i = 0;
  let position = 0;
  let open = true;
  const fill = (): bigint | undefined => {
    const read = readSync(fd, bytes, 0, bytes.length, position);
    position += read;
    length = read / 8;
    i = 0;
    return length > 0 ? buffer[0] : undefined;
  };
  const source: HashSource = {
    head: fill(),
    advance() {
      this.head = ++i < length ? buffer[i] : fill();
    },
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
  return source;
}

/** Hashes found in two or more sources (each source sorted, no hash twice within one), in increasing order. */
function sharedOf(sources: HashSource[]): bigint[] {
  const shared: bigint[] = [];
  // A binary heap of the sources by their heads.
  const heap = sources.filter((s) => s.head !== undefined);
  const less = (a: HashSource, b: HashSource) => a.head! < b.head!;
  const siftDown = (start: number) => {
    for (let i = start; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < heap.length && less(heap[l], heap[least])) least = l;
      if (r < heap.length && less(heap[r], heap[least])) least = r;
      if (least === i) return;
      [heap[i], heap[least]] = [heap[least], heap[i]];
      i = least;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
  let previous: bigint | undefined;
  while (heap.length > 0) {
    const top = heap[0];
    const hash = top.head!;
    if (hash === previous && shared.at(-1) !== hash) shared.push(hash);
    previous = hash;
    top.advance();
    if (top.head === undefined) {
      heap[0] = heap[heap.length - 1];
      heap.pop();
    }
    siftDown(0);
  }
  return shared;
}
