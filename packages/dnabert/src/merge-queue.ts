// The BPE's pending merges, by rank: a bucket of symbol positions per rank and a bitmap of the non-empty buckets, taken
// lowest rank first, each bucket's positions in ascending order. That is the (rank, position) order of Hugging Face's
// heap, without a heap, provided nothing is queued at or below the rank being taken: true when every merge comes after
// the merges that make its tokens (a merge's result then only pairs into higher ranks), which BpeTokenizer checks when it
// is made.

const NONE = -1;

export class MergeQueue {
  /** The rank last taken, and its positions (ascending) in `positions[0, count)`. */
  rank = NONE;
  positions = new Int32Array(256);
  private readonly head: Int32Array;
  private readonly tail: Int32Array;
  private readonly nonEmpty: Uint32Array;
  /** Queued entries: a symbol position and the next entry of its bucket. */
  private entryPos = new Int32Array(1024);
  private entryNext = new Int32Array(1024);
  private entries = 0;
  /** Words of `nonEmpty` below this one are zero. */
  private word = 0;

  constructor(ranks: number) {
    this.head = new Int32Array(ranks).fill(NONE);
    this.tail = new Int32Array(ranks);
    this.nonEmpty = new Uint32Array((ranks + 31) >>> 5);
  }

  /** Empties the queue (it is empty after the last take) and makes room for `capacity` pushes. */
  reset(capacity: number): void {
    this.entries = 0;
    this.word = 0;
    if (this.entryPos.length < capacity) {
      const size = Math.max(capacity, 2 * this.entryPos.length);
      this.entryPos = new Int32Array(size);
      this.entryNext = new Int32Array(size);
    }
  }

  push(rank: number, pos: number): void {
    const e = this.entries++;
    this.entryPos[e] = pos;
    this.entryNext[e] = NONE;
    if (this.head[rank] === NONE) {
      this.head[rank] = e;
      this.nonEmpty[rank >>> 5] |= 1 << (rank & 31);
    } else {
      this.entryNext[this.tail[rank]] = e;
    }
    this.tail[rank] = e;
  }

  /** Takes the lowest non-empty rank's bucket into `rank` / `positions`; its size, 0 when the queue is empty. */
  take(): number {
    const { nonEmpty } = this;
    let w = this.word;
    while (w < nonEmpty.length && nonEmpty[w] === 0) w++;
    this.word = w;
    if (w === nonEmpty.length) return 0;
    const bits = nonEmpty[w];
    const bit = 31 - Math.clz32(bits & -bits);
    nonEmpty[w] = bits & ~(1 << bit);
    const rank = (w << 5) | bit;
    this.rank = rank;
    let count = 0;
    let sorted = true;
    let last = -1;
    for (let e = this.head[rank]; e !== NONE; e = this.entryNext[e]) {
      if (count === this.positions.length) {
        const bigger = new Int32Array(2 * count);
        bigger.set(this.positions);
        this.positions = bigger;
      }
      const pos = this.entryPos[e];
      if (pos < last) sorted = false;
      this.positions[count++] = last = pos;
    }
    this.head[rank] = NONE;
    if (!sorted) this.positions.subarray(0, count).sort();
    return count;
  }
}
