import * as tf from '@tensorflow/tfjs-core';
import type { PackedLayout } from '../packed-layout.js';
import { segmentMean } from '../segment-mean.js';

/**
 * What a model's batch-invariance test compares per item, from one packed forward pass: the item's last hidden
 * rows, then its mean over tokens (what meanEmbeddings returns; `skip` tokens left out at each end, 1 for ESM-2's
 * BOS/EOS). `forward` runs the packed batch and returns its hidden rows and layout (both disposed here).
 */
export async function rowsAndMeansPerItem(
  forward: () => { hidden: tf.Tensor2D; layout: PackedLayout },
  skip = 0,
): Promise<Float32Array[]> {
  const { hidden, layout } = forward();
  const d = hidden.shape[1];
  const means = segmentMean(hidden, layout, skip, skip);
  const [rows, pooled] = [(await hidden.data()) as Float32Array, (await means.data()) as Float32Array];
  tf.dispose([hidden, means]);
  const out: Float32Array[] = [];
  for (let s = 0; s < layout.offsets.length - 1; s++) {
    const [start, end] = [layout.offsets[s], layout.offsets[s + 1]];
    const item = new Float32Array((end - start + 1) * d);
    item.set(rows.subarray(start * d, end * d));
    item.set(pooled.subarray(s * d, (s + 1) * d), (end - start) * d);
    out.push(item);
  }
  layout.dispose();
  return out;
}
