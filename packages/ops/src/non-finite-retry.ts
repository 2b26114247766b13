import { inFullPrecision } from './full-precision.js';

/** Embeds a batch: one vector per item, in order. */
export type BatchEmbed<I> = (items: I[]) => Promise<Float32Array[]>;

export interface NonFiniteRetry<I> {
  embed: BatchEmbed<I>;
  /** Batches whose output held a NaN or ±Inf and were computed again in full precision. */
  recomputed(): number;
}

function allFinite(vectors: readonly Float32Array[]): boolean {
  for (const v of vectors) for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i])) return false;
  return true;
}

/**
 * Wraps a reduced-precision model (fp16/bf16 on cuda): a batch whose output holds a NaN or ±Inf (an fp16
 * overflow) is computed again by a full-precision copy of the model, made on first need by `loadFullPrecision`
 * inside `inFullPrecision` and kept; the count goes to the run report. Batches with finite output pass as they are.
 */
export function retryNonFiniteInFullPrecision<I>(embed: BatchEmbed<I>, loadFullPrecision: () => Promise<BatchEmbed<I>>): NonFiniteRetry<I> {
  let fullPrecision: Promise<BatchEmbed<I>> | undefined;
  let recomputed = 0;
  return {
    async embed(items) {
      const vectors = await embed(items);
      if (allFinite(vectors)) return vectors;
      recomputed++;
      fullPrecision ??= loadFullPrecision();
      const full = await fullPrecision;
      return inFullPrecision(() => full(items));
    },
    recomputed: () => recomputed,
  };
}
