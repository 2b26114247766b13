// The batch-invariance rule as a check any test can run (docs/architecture.md, "Batch invariance"): every
// sequence's output must be the same bytes whether it is embedded alone, in a small batch, in a full batch
// at another offset, in reverse order, or beside other neighbours.

/** Deterministic xorshift32 generator of floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let s = (seed * 2654435761) >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

/** An integer in [lo, hi] (both included). */
export function randomInt(rand: () => number, lo: number, hi: number): number {
  return lo + Math.floor(rand() * (hi - lo + 1));
}

/** One way of cutting the work: batches of item indices, each batch run as one packed call. */
export interface Arrangement {
  name: string;
  batches: number[][];
}

/**
 * The arrangements every item is checked in (besides alone, the reference): the full batch in order, reversed,
 * rotated (every item at another offset) and shuffled; random small batches of 2–4 (other neighbours); and each
 * item right after the longest one (another offset, another attention group). `lengths` are the items' token counts.
 */
export function batchArrangements(lengths: readonly number[], rand: () => number): Arrangement[] {
  const n = lengths.length;
  const all = lengths.map((_, i) => i);
  const rotate = (by: number) => all.map((_, i) => (i + by) % n);
  const shuffled = () => {
    const a = [...all];
    for (let i = n - 1; i > 0; i--) {
      const j = randomInt(rand, 0, i);
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  };
  const smallBatches = (order: number[]) => {
    const batches: number[][] = [];
    for (let at = 0; at < n;) {
      const size = Math.min(n - at, randomInt(rand, 2, 4));
      batches.push(order.slice(at, at + size));
      at += size;
    }
    return batches;
  };
  const longest = all.reduce((best, i) => (lengths[i] > lengths[best] ? i : best), 0);
  const arrangements: Arrangement[] = [
    { name: 'full batch', batches: [all] },
    { name: 'full batch reversed', batches: [[...all].reverse()] },
    { name: 'full batch shuffled', batches: [shuffled()] },
    { name: 'small batches', batches: smallBatches(all) },
    { name: 'small batches, other neighbours', batches: smallBatches(shuffled()) },
    { name: 'after the longest', batches: all.filter((i) => i !== longest).map((i) => [longest, i]) },
  ];
  if (n > 2) {
    const by = randomInt(rand, 1, n - 1);
    arrangements.push({ name: `full batch rotated by ${by}`, batches: [rotate(by)] });
  }
  return arrangements;
}

/** An item whose bytes in some arrangement differ from its bytes alone. */
export interface BatchDependence {
  item: number;
  arrangement: string;
  /** Values that differ (by bit pattern) out of `values`. */
  differing: number;
  values: number;
  maxAbsDiff: number;
}

/** Values of `a` and `b` whose bit patterns differ, and the largest absolute difference among them. */
export function compareBytes(a: Float32Array, b: Float32Array): { differing: number; maxAbsDiff: number } {
  if (a.length !== b.length) return { differing: Math.max(a.length, b.length), maxAbsDiff: Infinity };
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  let differing = 0;
  let maxAbsDiff = 0;
  for (let i = 0; i < ua.length; i++) {
    if (ua[i] === ub[i]) continue;
    differing++;
    const diff = Math.abs(a[i] - b[i]);
    maxAbsDiff = Number.isNaN(diff) ? Infinity : Math.max(maxAbsDiff, diff);
  }
  return { differing, maxAbsDiff };
}

/** Embeds a batch of items as one packed call: one output per item, in the batch's order. */
export type EmbedBatch<T> = (batch: T[]) => Promise<Float32Array[]> | Float32Array[];

/**
 * Embeds every item alone (the reference), then in every arrangement of `batchArrangements`, and returns each
 * time an item's bytes differ from its bytes alone (empty: the embedding is batch-invariant for these items).
 */
export async function findBatchDependence<T>(
  items: readonly T[],
  lengths: readonly number[],
  embed: EmbedBatch<T>,
  rand: () => number,
): Promise<BatchDependence[]> {
  if (items.length !== lengths.length) throw new Error(`findBatchDependence: ${items.length} items but ${lengths.length} lengths`);
  const alone: Float32Array[] = [];
  for (const item of items) alone.push((await embed([item]))[0]);
  const found: BatchDependence[] = [];
  for (const { name, batches } of batchArrangements(lengths, rand)) {
    for (const batch of batches) {
      const outputs = await embed(batch.map((i) => items[i]));
      if (outputs.length !== batch.length) throw new Error(`findBatchDependence: ${outputs.length} outputs for a batch of ${batch.length}`);
      batch.forEach((i, k) => {
        const { differing, maxAbsDiff } = compareBytes(alone[i], outputs[k]);
        if (differing) found.push({ item: i, arrangement: name, differing, values: alone[i].length, maxAbsDiff });
      });
    }
  }
  return found;
}

/** One line per dependence found, for a test's failure message. */
export function describeBatchDependence(found: readonly BatchDependence[], lengths?: readonly number[]): string {
  return found
    .map((f) => `item ${f.item}${lengths ? ` (${lengths[f.item]} tokens)` : ''}, ${f.arrangement}: ${f.differing}/${f.values} values differ, max |Δ| ${f.maxAbsDiff.toExponential(2)}`)
    .join('\n');
}

/** How many seeds every property test adds to its fixed ones: a longer soak run (`VIRNUCPRO_INVARIANCE_SEEDS=50`). */
export const invarianceSeedsEnvVar = 'VIRNUCPRO_INVARIANCE_SEEDS';

/** The fixed seeds of a property test, plus `VIRNUCPRO_INVARIANCE_SEEDS` more (1000, 1001, …) when it is set. */
export function invarianceSeeds(fixed: readonly number[]): number[] {
  const value = process.env[invarianceSeedsEnvVar] ?? '0';
  const extra = Number(value);
  if (!Number.isInteger(extra) || extra < 0) throw new Error(`${invarianceSeedsEnvVar} must be a whole number of extra seeds, got '${value}'`);
  return [...fixed, ...Array.from({ length: extra }, (_, i) => 1000 + i)];
}
