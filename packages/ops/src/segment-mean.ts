import * as tf from '@tensorflow/tfjs-core';
import type { PackedLayout } from './packed-layout.js';

/**
 * Mean of each segment's rows of a packed [N, d] tensor → [S, d], leaving out `skipStart` rows
 * at the start and `skipEnd` at the end of every segment (ESM-2: 1 and 1 for BOS/EOS; DNABERT: 0, 0).
 */
export function segmentMean(x: tf.Tensor2D, layout: PackedLayout, skipStart = 0, skipEnd = 0): tf.Tensor2D {
  return tf.matMul(layout.meanMatrix(skipStart, skipEnd), x);
}
