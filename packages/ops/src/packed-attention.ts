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
 * [h·hd, (h+1)·hd)). For each group of similar-length segments (see PackedLayout), rows are
 * gathered into a padded [S_g, L_g] layout, attention is one batched matmul over (segment, head)
 * with padding keys masked (plus ALiBi if given), softmax in fp32, a second batched matmul, and
 * finally one gather brings every row back to [N, H·hd]. Tokens never attend across segments.
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
  if (options.alibiSlopes && options.alibiSlopes.length !== H) {
    throw new Error(`packedAttention: ${options.alibiSlopes.length} ALiBi slopes for ${H} heads`);
  }
  return tf.tidy((): tf.Tensor2D => {
    const qs = options.scale === 1 ? q : tf.mul(q, options.scale);
    const identity = layout.isIdentity;
    const outputs = layout.groups.map((group) => {
      const S = group.segments.length;
      const L = group.maxLength;
      const toHeads = (x: tf.Tensor2D): tf.Tensor3D => {
        const padded = identity ? x : tf.gather(x, group.toPadded);
        return tf.reshape(tf.transpose(tf.reshape(padded, [S, L, H, hd]), [0, 2, 1, 3]), [S * H, L, hd]);
      };
      let scores: tf.Tensor4D = tf.reshape(tf.matMul(toHeads(qs as tf.Tensor2D), toHeads(k), false, true), [S, H, L, L]);
      const mask = group.keyMask;
      if (mask) scores = tf.add(scores, mask);
      if (options.alibiSlopes) scores = tf.add(scores, layout.alibiBias(options.alibiSlopes, L));
      const probs = tf.reshape(tf.softmax(scores), [S * H, L, L]);
      return tf.reshape(tf.transpose(tf.reshape(tf.matMul(probs, toHeads(v)), [S, H, L, hd]), [0, 2, 1, 3]), [S * L, width]);
    });
    const context = outputs.length === 1 ? outputs[0] : tf.concat(outputs, 0);
    return (identity ? context : tf.gather(context, layout.fromPadded)) as tf.Tensor2D;
  });
}
