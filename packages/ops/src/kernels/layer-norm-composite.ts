import * as tf from '@tensorflow/tfjs-core';
import type { TensorInfo } from '@tensorflow/tfjs-core';
import type { VnpLayerNormAttrs, VnpLayerNormInputs } from '../kernel-names.js';
import { asTensor, kernelArgs, type CompositeKernelArgs } from './composite-utils.js';

/** VnpLayerNorm from tf.moments (biased variance, as torch); tfjs-core has no LayerNorm op. */
export function layerNormComposite(args: CompositeKernelArgs): TensorInfo {
  const { inputs, attrs } = kernelArgs<VnpLayerNormInputs, VnpLayerNormAttrs>(args);
  return tf.tidy(() => {
    const x = asTensor<tf.Tensor2D>(inputs.x);
    const { mean, variance } = tf.moments(x, -1, true);
    const normalized = tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, attrs.epsilon)));
    return tf.add(tf.mul(normalized, asTensor(inputs.gamma)), asTensor(inputs.beta));
  });
}
