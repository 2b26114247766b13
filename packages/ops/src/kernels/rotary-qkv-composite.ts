import * as tf from '@tensorflow/tfjs-core';
import type { TensorInfo } from '@tensorflow/tfjs-core';
import type { VnpRotaryQkvAttrs, VnpRotaryQkvInputs } from '../kernel-names.js';
import { asTensor, kernelArgs, type CompositeKernelArgs } from './composite-utils.js';

/**
 * VnpRotaryQkv from tfjs ops: gather each row's cos / signed-sin, rotate q and k together as
 * x·cos + (x2, x1)·sinSigned (rotate_half as a swap of the halves), then put v back behind them.
 */
export function rotaryQkvComposite(args: CompositeKernelArgs): TensorInfo {
  const { inputs, attrs } = kernelArgs<VnpRotaryQkvInputs, VnpRotaryQkvAttrs>(args);
  return tf.tidy(() => {
    const qkv = asTensor<tf.Tensor2D>(inputs.qkv);
    const positions = asTensor<tf.Tensor1D>(inputs.positions);
    const H = attrs.numHeads;
    const [N, width] = qkv.shape;
    const d = width / 3;
    const hd = d / H;
    const cos = tf.reshape(tf.gather(asTensor(inputs.cos), positions), [N, 1, hd]);
    const sinSigned = tf.reshape(tf.gather(asTensor(inputs.sinSigned), positions), [N, 1, hd]);
    const [qk, v] = tf.split(qkv, [2 * d, d], 1);
    const heads = tf.reshape(qk, [N, 2 * H, hd]);
    const [x1, x2] = tf.split(heads, 2, 2);
    const rotated = tf.add(tf.mul(heads, cos), tf.mul(tf.concat([x2, x1], 2), sinSigned));
    return tf.concat([tf.reshape(rotated, [N, 2 * d]), v], 1);
  });
}
