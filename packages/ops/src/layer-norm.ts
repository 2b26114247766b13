import * as tf from '@tensorflow/tfjs-core';
import { VnpLayerNorm, type VnpLayerNormAttrs, type VnpLayerNormInputs } from './kernel-names.js';
import { expectRank, expectShape, runVnpKernel } from './op-checks.js';

/** What a model tells `layerNorm` of its output's use. */
export interface LayerNormOptions {
  /** Read only as a `linear` layer's input (a pre-norm block's): see VnpLayerNormAttrs.linearInputOnly. */
  linearInputOnly?: boolean;
}

/** LayerNorm over the last axis of x [N, d] (biased variance, as torch.nn.LayerNorm), kernel `VnpLayerNorm`. */
export function layerNorm(x: tf.Tensor2D, gamma: tf.Tensor1D, beta: tf.Tensor1D, eps: number, options: LayerNormOptions = {}): tf.Tensor2D {
  expectRank('layerNorm', 'x', x, 2);
  const d = x.shape[1];
  expectShape('layerNorm', 'gamma', gamma, [d]);
  expectShape('layerNorm', 'beta', beta, [d]);
  if (!(Number.isFinite(eps) && eps >= 0)) throw new Error(`layerNorm: eps must be a finite number ≥ 0, got ${eps}`);
  const inputs: VnpLayerNormInputs = { x, gamma, beta };
  const attrs: VnpLayerNormAttrs = { epsilon: eps, linearInputOnly: options.linearInputOnly ?? false };
  return runVnpKernel(VnpLayerNorm, inputs, attrs);
}
