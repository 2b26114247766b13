import * as tf from '@tensorflow/tfjs-core';
import type { TensorInfo } from '@tensorflow/tfjs-core';
import type { VnpEmbeddingAttrs, VnpEmbeddingInputs } from '../kernel-names.js';
import { asTensor, kernelArgs, type CompositeKernelArgs } from './composite-utils.js';

/** VnpEmbedding from tfjs ops: gather the rows, then multiply by the per-row factors or the scalar (skipped when 1). */
export function embeddingComposite(args: CompositeKernelArgs): TensorInfo {
  const { inputs, attrs } = kernelArgs<VnpEmbeddingInputs, VnpEmbeddingAttrs>(args);
  return tf.tidy(() => {
    const ids = asTensor<tf.Tensor1D>(inputs.ids);
    const rows = tf.gather(asTensor<tf.Tensor2D>(inputs.table), ids);
    if (inputs.rowScale) return tf.mul(rows, tf.reshape(asTensor(inputs.rowScale), [ids.shape[0], 1]));
    return attrs.scale === 1 ? rows : tf.mul(rows, attrs.scale);
  });
}
