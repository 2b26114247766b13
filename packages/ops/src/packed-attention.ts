import * as tf from '@tensorflow/tfjs-core';
import type { PackedLayout } from './packed-layout.js';

export interface PackedAttentionOptions {
  numHeads: number;
  /** Multiplies q before q·kᵀ (pass 1 when the caller has already scaled q, as ESM-2 does). */
  scale: number;
  /** Per-head ALiBi slopes: adds −slope_h·|i−j| to the scores of head h. */
  alibiSlopes?: Float32Array;
}

/**
 * Multi-head self-attention over a packed stream: q, k, v are [N, H·hd] (head h = columns
 * [h·hd, (h+1)·hd)). Rows are gathered into a padded [S, Lmax] layout, attention is one batched
 * matmul per (segment, head) with padding keys masked, softmax in fp32, then rows are gathered
 * back to [N, H·hd]. Tokens never attend across segments.
 */
export function packedAttention(
  q: tf.Tensor2D,
  k: tf.Tensor2D,
  v: tf.Tensor2D,
  layout: PackedLayout,
  options: PackedAttentionOptions,
): tf.Tensor2D {
  const [rows, width] = q.shape;
  const H = options.numHeads;
  if (rows !== layout.totalTokens) throw new Error(`packedAttention: q has ${rows} rows, layout has ${layout.totalTokens}`);
  if (width % H !== 0) throw new Error(`packedAttention: width ${width} is not divisible by ${H} heads`);
  const hd = width / H;
  const S = layout.numSegments;
  const L = layout.maxLength;
  return tf.tidy((): tf.Tensor2D => {
    const toHeads = (x: tf.Tensor2D): tf.Tensor3D => {
      const padded = layout.isSingleSegment ? x : tf.gather(x, layout.toPadded);
      return tf.reshape(tf.transpose(tf.reshape(padded, [S, L, H, hd]), [0, 2, 1, 3]), [S * H, L, hd]);
    };
    const qh = toHeads(options.scale === 1 ? q : tf.mul(q, options.scale));
    const kh = toHeads(k);
    const vh = toHeads(v);
    let scores: tf.Tensor4D = tf.reshape(tf.matMul(qh, kh, false, true), [S, H, L, L]);
    if (!layout.isSingleSegment) scores = tf.add(scores, layout.keyMask);
    if (options.alibiSlopes) {
      if (options.alibiSlopes.length !== H) throw new Error(`packedAttention: ${options.alibiSlopes.length} ALiBi slopes for ${H} heads`);
      scores = tf.add(scores, layout.alibiBias(options.alibiSlopes));
    }
    const probs = tf.reshape(tf.softmax(scores), [S * H, L, L]);
    const context = tf.reshape(tf.transpose(tf.reshape(tf.matMul(probs, vh), [S, H, L, hd]), [0, 2, 1, 3]), [S * L, width]);
    return layout.isSingleSegment ? (context as tf.Tensor2D) : (tf.gather(context, layout.fromPadded) as tf.Tensor2D);
  });
}
