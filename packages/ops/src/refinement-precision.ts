import * as tf from '@tensorflow/tfjs-core';

/** A backend whose precision trades accuracy for speed may compute some work at a more accurate one (`cuda` in fp8: bf16). */
interface RefiningBackend {
  withRefinementPrecision<T>(fn: () => T): T;
}

/**
 * Runs `fn` with the active backend computing at its refinement precision: `cuda` in fp8 runs every linear layer
 * as in bf16 (the bytes `--precision bf16` gives), so that a caller can take a second, more accurate look at the
 * few items whose result is close to a decision; every other backend and precision just calls `fn`. Covers what
 * `fn` does synchronously, as a forward pass queues all its kernels before its first await.
 */
export function inRefinementPrecision<T>(fn: () => T): T {
  const backend = tf.backend() as Partial<RefiningBackend>;
  return typeof backend.withRefinementPrecision === 'function' ? backend.withRefinementPrecision(fn) : fn();
}
