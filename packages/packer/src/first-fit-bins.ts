/**
 * First-fit bin search in O(log bins): a max segment tree over the remaining capacity of each open bin,
 * so `firstFitting(size)` finds the leftmost bin with room. Plain first fit is O(bins) per item, which
 * is quadratic when a window holds thousands of large items.
 */
export class FirstFitBins {
  private readonly size: number;
  private readonly tree: Float64Array;
  private count = 0;

  constructor(maxBins: number) {
    let size = 1;
    while (size < Math.max(1, maxBins)) size *= 2;
    this.size = size;
    this.tree = new Float64Array(2 * size).fill(-1);
  }

  get length(): number {
    return this.count;
  }

  /** Opens a bin with `capacity` room; returns its number. */
  open(capacity: number): number {
    const bin = this.count++;
    this.set(bin, capacity);
    return bin;
  }

  remaining(bin: number): number {
    return this.tree[this.size + bin];
  }

  take(bin: number, amount: number): void {
    this.set(bin, this.tree[this.size + bin] - amount);
  }

  /** Leftmost open bin with at least `amount` room, or -1. */
  firstFitting(amount: number): number {
    if (this.tree[1] < amount) return -1;
    let node = 1;
    while (node < this.size) node = this.tree[2 * node] >= amount ? 2 * node : 2 * node + 1;
    return node - this.size;
  }

  private set(bin: number, value: number): void {
    let node = this.size + bin;
    this.tree[node] = value;
    for (node >>= 1; node >= 1; node >>= 1) this.tree[node] = Math.max(this.tree[2 * node], this.tree[2 * node + 1]);
  }
}
