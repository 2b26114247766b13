import * as tf from '@tensorflow/tfjs-core';
import type { PackedLayout } from './packed-layout.js';

/**
 * Mean of each segment's rows of a packed [N, d] tensor → [S, d], leaving out `skipStart` rows
 * at the start and `skipEnd` at the end of every segment (ESM-2: 1 and 1 for BOS/EOS; DNABERT: 0, 0).
 *
 * Each segment is reduced on its own (slice → sum → ÷ count), so its mean depends only on its own
 * rows, never on which other segments share the batch or where it sits in it. (A single matmul with
 * `layout.meanMatrix()` pools all segments at once, but its blocked inner loop groups a segment's
 * additions by the segment's row offset: the same frame came out a few ulps apart in different
 * batches, so a resumed run, whose batches differ, did not reproduce an undisturbed one bit for bit.)
 */
export function segmentMean(x: tf.Tensor2D, layout: PackedLayout, skipStart = 0, skipEnd = 0): tf.Tensor2D {
  const d = x.shape[1];
  return tf.tidy(() => {
    const means = layout.lengths.map((n, s) => {
      const count = n - skipStart - skipEnd;
      if (count < 1) throw new Error(`segment ${s} of length ${n} has no rows left after skipping ${skipStart}+${skipEnd}`);
      return tf.div(tf.sum(tf.slice(x, [layout.offsets[s] + skipStart, 0], [count, d]), 0), count);
    });
    return tf.stack(means) as tf.Tensor2D;
  });
}
