// The BPE merges by rank, and the rank of a (left id, right id) pair in one array read: row displacement (as in
// compressed parser tables). Each left id's row of merges is placed at an offset `base[left]` where none of its right
// ids collide with another row's, so the pair's slot is base[left] + right and the slot's owner says whether the pair
// is a merge. It replaced an open-addressing hash whose probe loop took a fifth of the BPE's time
// (docs/benchmarks/dnabert-cpu.md#tokenizer-speed-on-genome-windows). Per rank it keeps the pair and its merged id, so a
// queued merge is checked for staleness by comparing ids, without a lookup.

const NONE = -1;

export interface Merge {
  left: number;
  right: number;
  merged: number;
}

export class PairTable {
  /** Per rank: the pair's left and right ids and the id they merge into. */
  readonly left: Int32Array;
  readonly right: Int32Array;
  readonly merged: Int32Array;
  private readonly base: Int32Array;
  /** Per slot, interleaved: the left id owning it (NONE if free) and the rank of (left, slot - base[left]). */
  private readonly slots: Int32Array;

  /** `merges` in rank order; a pair listed twice keeps its first (lowest) rank, as in Hugging Face tokenizers. */
  constructor(vocabSize: number, merges: readonly Merge[]) {
    this.left = Int32Array.from(merges, (m) => m.left);
    this.right = Int32Array.from(merges, (m) => m.right);
    this.merged = Int32Array.from(merges, (m) => m.merged);
    const rows = new Map<number, Map<number, number>>(); // left → right → rank
    merges.forEach(({ left, right }, rank) => {
      let row = rows.get(left);
      if (!row) rows.set(left, (row = new Map()));
      if (!row.has(right)) row.set(right, rank);
    });
    // First fit, longest rows first; a slot array that grows as rows are placed.
    this.base = new Int32Array(vocabSize);
    let owner = new Int32Array(2 * vocabSize).fill(NONE);
    let firstFree = 0;
    for (const [left, row] of [...rows].sort((a, b) => b[1].size - a[1].size)) {
      const rights = [...row.keys()];
      const lowest = Math.min(...rights);
      for (let b = Math.max(0, firstFree - lowest); ; b++) {
        if (b + vocabSize > owner.length) {
          const bigger = new Int32Array(2 * owner.length).fill(NONE);
          bigger.set(owner);
          owner = bigger;
        }
        if (rights.some((r) => owner[b + r] !== NONE)) continue;
        this.base[left] = b;
        for (const r of rights) owner[b + r] = left;
        break;
      }
      while (owner[firstFree] !== NONE) firstFree++;
    }
    // Every id's row (base 0 for an id without merges) must stay inside the slots for any right id.
    let size = vocabSize;
    for (const b of this.base) size = Math.max(size, b + vocabSize);
    this.slots = new Int32Array(2 * size).fill(NONE);
    for (const [left, row] of rows) {
      for (const [right, rank] of row) {
        this.slots[2 * (this.base[left] + right)] = left;
        this.slots[2 * (this.base[left] + right) + 1] = rank;
      }
    }
  }

  /** The rank of the merge of (left, right), or -1 when the pair has none. */
  rankOf(left: number, right: number): number {
    const slot = (this.base[left] + right) << 1;
    return this.slots[slot] === left ? this.slots[slot + 1] : NONE;
  }
}
