import * as tf from '@tensorflow/tfjs-core';

/**
 * y = x·wT + b. `wT` is the weight already transposed to [in, out] (done once at load) so the
 * hot path is a single (fused bias) matmul over all tokens of a packed batch.
 */
export function linear(x: tf.Tensor2D, wT: tf.Tensor2D, b?: tf.Tensor1D): tf.Tensor2D {
  return tf.fused.matMul({ a: x, b: wT, bias: b }) as tf.Tensor2D;
}
