import * as tf from '@tensorflow/tfjs-core';

/** Exact GELU, 0.5·x·(1 + erf(x/√2)) — the form ESM-2 and DNABERT use (not the tanh approximation). */
export function gelu<T extends tf.Tensor>(x: T): T {
  return tf.tidy(() => tf.mul(tf.mul(x, 0.5), tf.add(tf.erf(tf.mul(x, Math.SQRT1_2)), 1)) as T);
}
