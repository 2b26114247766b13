import * as tf from '@tensorflow/tfjs-core';
import type { TensorInfo } from '@tensorflow/tfjs-core';
import { gelu } from '../gelu.js';
import type { VnpGegluInputs } from '../kernel-names.js';
import { asTensor, kernelArgs, type CompositeKernelArgs } from './composite-utils.js';

/** VnpGeglu from tfjs ops: split the columns in half, gelu(first) · second. */
export function gegluComposite(args: CompositeKernelArgs): TensorInfo {
  const { inputs } = kernelArgs<VnpGegluInputs, object>(args);
  return tf.tidy(() => {
    const x = asTensor<tf.Tensor2D>(inputs.x);
    const f = x.shape[1] / 2;
    const [gate, value] = tf.split(x, [f, f], 1);
    return tf.mul(gelu(gate), value);
  });
}
