import * as tf from '@tensorflow/tfjs-core';
import { VnpLinear, type VnpLinearAttrs, type VnpLinearInputs } from './kernel-names.js';
import { expectRank, expectShape, runVnpKernel } from './op-checks.js';
import type { PackedLayout } from './packed-layout.js';

export interface LinearOptions {
  /** Applied to x·wT + b before the residual add: 'gelu' is the exact erf GELU. Default 'none'. */
  activation?: 'none' | 'gelu';
  /** [N, out], added last (the block's residual connection). */
  residual?: tf.Tensor2D;
  /**
   * The packed layout of x's rows (the sequences they belong to). The result is the same without it; a backend
   * that rounds the weight may use it to take that rounding's effect on each sequence's mean input row out of the
   * sequence's rows (cuda in fp8: `fp8-sequence-correction`), which depends on the row's own sequence only.
   */
  segments?: PackedLayout;
}

/**
 * y = act(x·wT + b) + residual, kernel `VnpLinear`. `wT` is the weight already transposed to
 * [in, out] (done once at load) so the whole packed batch is one matmul; bias, activation and the
 * residual add are fused into the same kernel where the backend can.
 */
export function linear(x: tf.Tensor2D, wT: tf.Tensor2D, b?: tf.Tensor1D, options: LinearOptions = {}): tf.Tensor2D {
  const activation = options.activation ?? 'none';
  const { residual, segments } = options;
  expectRank('linear', 'x', x, 2);
  expectRank('linear', 'wT', wT, 2);
  const [rows, inner] = x.shape;
  const [wIn, out] = wT.shape;
  if (inner !== wIn) throw new Error(`linear: x is [${x.shape}] but wT is [${wT.shape}] (inner sizes ${inner} and ${wIn} differ)`);
  if (b) expectShape('linear', 'b', b, [out]);
  if (residual) expectShape('linear', 'residual', residual, [rows, out]);
  if (segments && segments.totalTokens !== rows) throw new Error(`linear: x has ${rows} rows, its segments' layout has ${segments.totalTokens}`);
  if (activation !== 'none' && activation !== 'gelu') throw new Error(`linear: unknown activation '${String(activation)}' (expected 'none' or 'gelu')`);
  const inputs: VnpLinearInputs = { x, weight: wT, ...(b ? { bias: b } : {}), ...(residual ? { residual } : {}), ...(segments ? { cuSeqlens: segments.offsetsTensor } : {}) };
  const attrs: VnpLinearAttrs = { activation };
  return runVnpKernel(VnpLinear, inputs, attrs);
}
