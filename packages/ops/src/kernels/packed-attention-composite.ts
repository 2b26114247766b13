import * as tf from '@tensorflow/tfjs-core';
import type { TensorInfo } from '@tensorflow/tfjs-core';
import type { VnpPackedAttentionAttrs, VnpPackedAttentionInputs } from '../kernel-names.js';
import { asTensor, kernelArgs, type CompositeKernelArgs } from './composite-utils.js';
import { rotaryQkvComposite } from './rotary-qkv-composite.js';
import { queryBlockRows } from '../query-block-rows.js';

/**
 * VnpPackedAttention from tfjs ops, planned from the host-side layout (the cuSeqlens input is not
 * needed). q, k, v are split off the fused qkv; for each group of equal-length segments (see
 * PackedLayout: no padding, so a segment's computation never depends on its neighbours), rows are
 * gathered into [S_g, L], attention is one batched matmul over (segment, head) (plus ALiBi if given),
 * softmax in fp32, a second batched matmul, and finally one gather brings every row back to [N, H·hd].
 * A layout whose groups are already in packed order slices instead of gathering. With rotary tables, q and k are
 * rotated first (VnpRotaryQkv's composite). Long segments take their query rows in blocks (queryBlockRows), so the
 * scores held at once grow linearly with the length instead of with its square: a 35,000-residue protein fits.
 */
export function packedAttentionComposite(args: CompositeKernelArgs): TensorInfo {
  const { inputs, attrs } = kernelArgs<VnpPackedAttentionInputs, VnpPackedAttentionAttrs>(args);
  const { layout, numHeads: H, scale, alibiSlopes } = attrs;
  return tf.tidy(() => {
    const { cos, sinSigned, positions } = inputs;
    const qkv = cos && sinSigned && positions
      ? asTensor<tf.Tensor2D>(rotaryQkvComposite({ ...args, inputs: { qkv: inputs.qkv, cos, sinSigned, positions }, attrs: { numHeads: H } }))
      : asTensor<tf.Tensor2D>(inputs.qkv);
    const width = qkv.shape[1] / 3;
    const hd = width / H;
    const [q, k, v] = tf.split(qkv, 3, 1) as tf.Tensor2D[];
    const qs: tf.Tensor2D = scale === 1 ? q : tf.mul(q, scale);
    const identity = layout.isIdentity;
    const outputs = layout.groups.map((group) => {
      const S = group.segments.length;
      const L = group.length;
      const toHeads = (x: tf.Tensor2D): tf.Tensor3D => {
        const rows = identity ? tf.slice(x, [group.start, 0], [S * L, x.shape[1]]) : tf.gather(x, group.rows);
        return tf.reshape(tf.transpose(tf.reshape(rows, [S, L, H, hd]), [0, 2, 1, 3]), [S * H, L, hd]);
      };
      const qh = toHeads(qs);
      const kh = toHeads(k);
      const vh = toHeads(v);
      // The wasm backend multiplies a batch of ONE [B, L]·[L, hd] product through XNNPACK and a batch of several
      // through its own loop, in another summation order: with one head, a segment alone got other bytes than beside
      // a neighbour of its length. A batch of one is therefore run as a batch of two (itself twice), which takes the
      // loop; batches of two or more are unchanged (the same bytes and speed as before). q·kᵀ (transposeB) takes the
      // loop for every batch size already.
      const timesV = (probs: tf.Tensor3D): tf.Tensor3D => probs.shape[0] > 1
        ? tf.matMul(probs, vh)
        : tf.slice(tf.matMul(tf.concat([probs, probs]), tf.concat([vh, vh])), [0, 0, 0], [1, probs.shape[1], hd]) as tf.Tensor3D;
      // Query rows [start, start + B): scores [S, H, B, L], softmax over each row's keys, times V.
      const rows = (start: number, B: number): tf.Tensor3D => {
        const q = B === L ? qh : tf.slice(qh, [0, start, 0], [S * H, B, hd]);
        let scores: tf.Tensor4D = tf.reshape(tf.matMul(q, kh, false, true), [S, H, B, L]);
        if (alibiSlopes) scores = tf.add(scores, B === L ? layout.alibiBias(alibiSlopes, L) : alibiRows(alibiSlopes, L, start, B));
        return timesV(tf.reshape(tf.softmax(scores), [S * H, B, L]));
      };
      const B = queryBlockRows(H, L);
      const blocks: tf.Tensor3D[] = [];
      // Each block in its own tidy: its scores are freed before the next block's are made.
      for (let start = 0; start < L; start += B) blocks.push(tf.tidy(() => rows(start, Math.min(B, L - start))));
      const out = blocks.length === 1 ? blocks[0] : tf.concat(blocks, 1);
      return tf.reshape(tf.transpose(tf.reshape(out, [S, H, L, hd]), [0, 2, 1, 3]), [S * L, width]);
    });
    const context = outputs.length === 1 ? outputs[0] : tf.concat(outputs, 0);
    return identity ? context : tf.gather(context, layout.fromGroups);
  });
}


/** float32 [1, H, B, L]: the ALiBi bias −slope_h·|i−j| of query rows i ∈ [start, start + B). */
function alibiRows(slopes: ArrayLike<number>, L: number, start: number, B: number): tf.Tensor4D {
  const H = slopes.length;
  const values = new Float32Array(H * B * L);
  for (let h = 0; h < H; h++) {
    for (let r = 0; r < B; r++) {
      const i = start + r;
      for (let j = 0; j < L; j++) values[(h * B + r) * L + j] = -slopes[h] * Math.abs(i - j);
    }
  }
  return tf.tensor4d(values, [1, H, B, L]);
}
