import * as tf from '@tensorflow/tfjs-core';
import type { TensorInfo } from '@tensorflow/tfjs-core';
import type { VnpPackedAttentionAttrs, VnpPackedAttentionInputs } from '../kernel-names.js';
import { asTensor, kernelArgs, type CompositeKernelArgs } from './composite-utils.js';
import { rotaryQkvComposite } from './rotary-qkv-composite.js';

/**
 * VnpPackedAttention from tfjs ops, planned from the host-side layout (the cuSeqlens input is not
 * needed). q, k, v are split off the fused qkv; for each group of equal-length segments (see
 * PackedLayout: no padding, so a segment's computation never depends on its neighbours), rows are
 * gathered into [S_g, L], attention is one batched matmul over (segment, head) (plus ALiBi if given),
 * softmax in fp32, a second batched matmul, and finally one gather brings every row back to [N, H·hd].
 * A layout whose groups are already in packed order slices instead of gathering. With rotary tables, q and k are
 * rotated first (VnpRotaryQkv's composite).
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
      let scores: tf.Tensor4D = tf.reshape(tf.matMul(toHeads(qs), toHeads(k), false, true), [S, H, L, L]);
      if (alibiSlopes) scores = tf.add(scores, layout.alibiBias(alibiSlopes, L));
      const probs = tf.reshape(tf.softmax(scores), [S * H, L, L]);
      return tf.reshape(tf.transpose(tf.reshape(tf.matMul(probs, toHeads(v)), [S, H, L, hd]), [0, 2, 1, 3]), [S * L, width]);
    });
    const context = outputs.length === 1 ? outputs[0] : tf.concat(outputs, 0);
    return identity ? context : tf.gather(context, layout.fromGroups);
  });
}
