import * as tf from '@tensorflow/tfjs-core';

/** LayerNorm over the last axis (biased variance, as torch.nn.LayerNorm); tfjs-core has no fused op. */
export function layerNorm(x: tf.Tensor2D, gamma: tf.Tensor1D, beta: tf.Tensor1D, eps: number): tf.Tensor2D {
  return tf.tidy(() => {
    const { mean, variance } = tf.moments(x, -1, true);
    const normalized = tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, eps)));
    return tf.add(tf.mul(normalized, gamma), beta) as tf.Tensor2D;
  });
}
