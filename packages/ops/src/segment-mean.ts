import * as tf from '@tensorflow/tfjs-core';
import type { NamedAttrMap } from '@tensorflow/tfjs-core';
import { VnpSegmentMean, type VnpSegmentMeanAttrs, type VnpSegmentMeanInputs } from './kernel-names.js';
import { expectCount, expectRank, runVnpKernel } from './op-checks.js';
import type { PackedLayout } from './packed-layout.js';

/**
 * Mean of each segment's rows of a packed [N, d] tensor → [S, d], kernel `VnpSegmentMean`, leaving
 * out `skipStart` rows at the start and `skipEnd` at the end of every segment (ESM-2: 1 and 1 for
 * BOS/EOS; DNABERT: 0, 0). Each segment's mean depends only on its own rows, so it is bit-identical
 * in any batch (see the composite kernel for why this is not one matmul).
 */
export function segmentMean(x: tf.Tensor2D, layout: PackedLayout, skipStart = 0, skipEnd = 0): tf.Tensor2D {
  expectRank('segmentMean', 'x', x, 2);
  if (x.shape[0] !== layout.totalTokens) throw new Error(`segmentMean: x has ${x.shape[0]} rows, layout has ${layout.totalTokens}`);
  expectCount('segmentMean', 'skipStart', skipStart, 0);
  expectCount('segmentMean', 'skipEnd', skipEnd, 0);
  layout.lengths.forEach((n, s) => {
    if (n - skipStart - skipEnd < 1) throw new Error(`segment ${s} of length ${n} has no rows left after skipping ${skipStart}+${skipEnd}`);
  });
  const inputs: VnpSegmentMeanInputs = { x, cuSeqlens: layout.offsetsTensor };
  const attrs: VnpSegmentMeanAttrs = { skipStart, skipEnd, layout: layout as PackedLayout & NamedAttrMap };
  return runVnpKernel(VnpSegmentMean, inputs, attrs);
}
