import * as tf from '@tensorflow/tfjs-core';
import type { TensorInfo } from '@tensorflow/tfjs-core';
import type { VnpSegmentMeanAttrs, VnpSegmentMeanInputs } from '../kernel-names.js';
import { asTensor, kernelArgs, type CompositeKernelArgs } from './composite-utils.js';

/**
 * VnpSegmentMean from tfjs ops: each segment is reduced on its own (slice → sum → ÷ count), so its
 * mean depends only on its own rows, never on which other segments share the batch or where it sits
 * in it. (A single matmul with an [S, N] averaging matrix pools all segments at once, but its blocked
 * inner loop groups a segment's additions by the segment's row offset: the same frame came out a few
 * ulps apart in different batches, so a resumed run, whose batches differ, did not reproduce an
 * undisturbed one bit for bit.)
 */
export function segmentMeanComposite(args: CompositeKernelArgs): TensorInfo {
  const { inputs, attrs } = kernelArgs<VnpSegmentMeanInputs, VnpSegmentMeanAttrs>(args);
  const { layout, skipStart, skipEnd } = attrs;
  return tf.tidy(() => {
    const x = asTensor<tf.Tensor2D>(inputs.x);
    const d = x.shape[1];
    const means = layout.lengths.map((n, s) => {
      const count = n - skipStart - skipEnd;
      return tf.div(tf.sum(tf.slice(x, [layout.offsets[s] + skipStart, 0], [count, d]), 0), count);
    });
    return tf.stack(means);
  });
}
