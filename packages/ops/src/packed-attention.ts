import * as tf from '@tensorflow/tfjs-core';
import type { NamedAttrMap } from '@tensorflow/tfjs-core';
import { VnpPackedAttention, type VnpPackedAttentionAttrs, type VnpPackedAttentionInputs } from './kernel-names.js';
import { expectCount, expectRank, runVnpKernel } from './op-checks.js';
import type { PackedLayout } from './packed-layout.js';
import { expectRotary } from './rotary-qkv.js';

export interface PackedAttentionOptions {
  numHeads: number;
  /** Multiplies q before q·kᵀ (pass 1 when the caller has already scaled q, as ESM-2 does). */
  scale: number;
  /** Per-head ALiBi slopes: adds −slope_h·|i−j| to the scores of head h. */
  alibiSlopes?: Float32Array;
  /**
   * Rotary tables (as for `rotaryQkv`, positions from the layout): q and k are rotated before the scores,
   * exactly as `packedAttention(rotaryQkv(qkv, cos, sinSigned, layout.positionsTensor, H), …)` would, but a
   * backend may rotate them while it loads them (cuda does: one pass over qkv instead of three).
   */
  rotary?: { cos: tf.Tensor2D; sinSigned: tf.Tensor2D };
}

/**
 * Multi-head self-attention over a packed stream, kernel `VnpPackedAttention`: qkv is the fused
 * projection [N, 3·H·hd] (q | k | v; head h of each part = columns [h·hd, (h+1)·hd)); the result is
 * the attention context [N, H·hd]. Tokens attend only within their own segment of `layout`.
 */
export function packedAttention(qkv: tf.Tensor2D, layout: PackedLayout, options: PackedAttentionOptions): tf.Tensor2D {
  const H = options.numHeads;
  expectCount('packedAttention', 'numHeads', H, 1);
  expectRank('packedAttention', 'qkv', qkv, 2);
  const [rows, width] = qkv.shape;
  if (rows !== layout.totalTokens) throw new Error(`packedAttention: qkv has ${rows} rows, layout has ${layout.totalTokens}`);
  if (width % (3 * H) !== 0) throw new Error(`packedAttention: qkv width ${width} is not 3 × ${H} heads × head size`);
  if (!Number.isFinite(options.scale)) throw new Error(`packedAttention: scale must be a finite number, got ${options.scale}`);
  const slopes = options.alibiSlopes;
  if (slopes && slopes.length !== H) throw new Error(`packedAttention: ${slopes.length} ALiBi slopes for ${H} heads`);
  const rotary = options.rotary;
  if (rotary) expectRotary('packedAttention', width / (3 * H), rotary.cos, rotary.sinSigned, layout.positionsTensor, rows);
  const inputs: VnpPackedAttentionInputs = {
    qkv,
    cuSeqlens: layout.offsetsTensor,
    ...(rotary ? { cos: rotary.cos, sinSigned: rotary.sinSigned, positions: layout.positionsTensor } : {}),
  };
  const attrs: VnpPackedAttentionAttrs = {
    numHeads: H,
    scale: options.scale,
    maxSeqLen: layout.maxLength,
    alibiSlopes: slopes ? Array.from(slopes) : null,
    layout: layout as PackedLayout & NamedAttrMap,
  };
  return runVnpKernel(VnpPackedAttention, inputs, attrs);
}
