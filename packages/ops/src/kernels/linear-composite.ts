import * as tf from '@tensorflow/tfjs-core';
import type { TensorInfo } from '@tensorflow/tfjs-core';
import { gelu } from '../gelu.js';
import type { VnpLinearAttrs, VnpLinearInputs } from '../kernel-names.js';
import { asTensor, kernelArgs, type CompositeKernelArgs } from './composite-utils.js';

/** VnpLinear from tfjs ops: one fused matmul + bias (plain matmul without bias), then GELU, then the residual add. */
export function linearComposite(args: CompositeKernelArgs): TensorInfo {
  const { inputs, attrs } = kernelArgs<VnpLinearInputs, VnpLinearAttrs>(args);
  return tf.tidy(() => {
    const x = asTensor<tf.Tensor2D>(inputs.x);
    const weight = asTensor<tf.Tensor2D>(inputs.weight);
    let y: tf.Tensor = inputs.bias
      ? tf.fused.matMul({ a: x, b: weight, bias: asTensor(inputs.bias) })
      : tf.matMul(x, weight);
    if (attrs.activation === 'gelu') y = gelu(y);
    return inputs.residual ? tf.add(y, asTensor(inputs.residual)) : y;
  });
}
