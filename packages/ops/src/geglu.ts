import * as tf from '@tensorflow/tfjs-core';
import { VnpGeglu, type VnpGegluInputs } from './kernel-names.js';
import { expectRank, runVnpKernel } from './op-checks.js';

/** GeGLU, kernel `VnpGeglu`: x [N, 2f] → [N, f] = gelu(x[:, :f]) · x[:, f:] (exact erf GELU). */
export function geglu(x: tf.Tensor2D): tf.Tensor2D {
  expectRank('geglu', 'x', x, 2);
  if (x.shape[1] % 2 !== 0) throw new Error(`geglu: x must have an even number of columns (gate | value), got [${x.shape}]`);
  const inputs: VnpGegluInputs = { x };
  return runVnpKernel(VnpGeglu, inputs, {});
}
