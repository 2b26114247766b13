import { inFullPrecision } from './full-precision.js';

/** Embeds a batch: one vector per item, in order. */
export type BatchEmbed<I> = (items: I[]) => Promise<Float32Array[]>;

export interface NonFiniteRetry<I> {
  embed: BatchEmbed<I>;
  /** Items whose output held a NaN or ±Inf and were computed again in full precision. */
  recomputed(): number;
}

function isFinite(vector: Float32Array): boolean {
  for (let i = 0; i < vector.length; i++) if (!Number.isFinite(vector[i])) return false;
  return true;
}

/**
 * Wraps a reduced-precision model (fp16/bf16/fp8 on cuda): an item whose output holds a NaN or ±Inf (an fp16
 * overflow) is computed again, alone among the batch's other such items, by a full-precision copy of the model,
 * made on first need by `loadFullPrecision` inside `inFullPrecision` and kept; the count goes to the run report.
 * Only those items: the others keep their reduced-precision vectors, which (every kernel being batch-invariant)
 * are the bytes they get alone — recomputing the whole batch would give an item other bytes because a
 * neighbour overflowed.
 */
export function retryNonFiniteInFullPrecision<I>(embed: BatchEmbed<I>, loadFullPrecision: () => Promise<BatchEmbed<I>>): NonFiniteRetry<I> {
  let fullPrecision: Promise<BatchEmbed<I>> | undefined;
  let recomputed = 0;
  return {
    async embed(items) {
      const vectors = await embed(items);
      const overflowed = vectors.flatMap((v, i) => (isFinite(v) ? [] : [i]));
      if (!overflowed.length) return vectors;
      recomputed += overflowed.length;
      fullPrecision ??= loadFullPrecision();
      const full = await fullPrecision;
      const again = await inFullPrecision(() => full(overflowed.map((i) => items[i])));
      overflowed.forEach((i, k) => { vectors[i] = again[k]; });
      return vectors;
    },
    recomputed: () => recomputed,
  };
}
