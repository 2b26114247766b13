import * as tf from '@tensorflow/tfjs-core';

/** A backend that stores floats in less than fp32 can offer to compute some work in exact fp32 (`cuda` does). */
interface FullPrecisionBackend {
  withFullPrecision<T>(fn: () => T): T;
}

/**
 * Runs `fn` with the active backend computing in exact fp32: on `cuda` in fp16/bf16, tensors made inside are
 * stored in fp32 (build an fp32 copy of a model here, and run it here); on every other backend, which computes
 * in fp32 anyway, it just calls `fn`. The setting covers what `fn` does synchronously — a forward pass queues
 * all its kernels before its first await — so an async `fn`'s later reads are unaffected.
 */
export function inFullPrecision<T>(fn: () => T): T {
  const backend = tf.backend() as Partial<FullPrecisionBackend>;
  return typeof backend.withFullPrecision === 'function' ? backend.withFullPrecision(fn) : fn();
}
