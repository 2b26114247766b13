// Open-addressing hash from a (left id, right id) pair to its merge rank and merged id.
// A plain Map<number, …> works too but is several times slower in the BPE inner loop.

const EMPTY = -1;

export class PairTable {
  private readonly keys: Int32Array;
  private readonly ranks: Int32Array;
  private readonly merged: Int32Array;
  private readonly mask: number;

  constructor(
    private readonly vocabSize: number,
    capacityHint: number,
  ) {
    let size = 16;
    while (size < capacityHint * 2) size *= 2;
    this.keys = new Int32Array(size).fill(EMPTY);
    this.ranks = new Int32Array(size);
    this.merged = new Int32Array(size);
    this.mask = size - 1;
  }

  private slot(key: number): number {
    // Fibonacci hashing spreads the dense (left*V + right) keys over the table.
    let i = Math.imul(key, 0x9e3779b1) >>> 0;
    i &= this.mask;
    while (this.keys[i] !== EMPTY && this.keys[i] !== key) i = (i + 1) & this.mask;
    return i;
  }

  /** Adds a merge unless the pair already has one (the first, lowest rank wins, as in HF). */
  add(left: number, right: number, rank: number, mergedId: number): void {
    const key = left * this.vocabSize + right;
    const i = this.slot(key);
    if (this.keys[i] === key) return;
    this.keys[i] = key;
    this.ranks[i] = rank;
    this.merged[i] = mergedId;
  }

  /** Slot index of the pair, or -1 when the pair has no merge. */
  find(left: number, right: number): number {
    const key = left * this.vocabSize + right;
    const i = this.slot(key);
    return this.keys[i] === key ? i : -1;
  }

  rankAt(slot: number): number {
    return this.ranks[slot];
  }

  mergedAt(slot: number): number {
    return this.merged[slot];
  }
}
