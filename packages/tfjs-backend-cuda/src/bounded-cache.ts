// A map that keeps its most recently used entries only, handing each one it drops to `evict` (which frees what the
// value holds). The GEMM plans are keyed by a batch's row count, which a long run varies without end: a plain map of
// them grows with the input, this one stays at `capacity`.

export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(
    readonly capacity: number,
    private readonly evict: (value: V, key: K) => void,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`BoundedCache: capacity must be a positive integer (got ${capacity})`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value, now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key)!;
    this.entries.delete(key); // a Map iterates in insertion order: re-inserting makes it the newest
    this.entries.set(key, value);
    return value;
  }

  /** Adds or replaces the value (a replaced one is evicted), then evicts the least recently used beyond capacity. */
  set(key: K, value: V): void {
    if (this.entries.has(key)) {
      const old = this.entries.get(key)!;
      this.entries.delete(key);
      if (old !== value) this.evict(old, key);
    }
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const [oldestKey, oldest] = this.entries.entries().next().value!;
      this.entries.delete(oldestKey);
      this.evict(oldest, oldestKey);
    }
  }
}
