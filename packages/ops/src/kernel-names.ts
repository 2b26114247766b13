// The named tfjs kernels behind the hot ops (the tfjs-core `kernel_names.ts` idiom). Each op in this
// package calls `ENGINE.runKernel(name, inputs, attrs)`; every backend registers an implementation under
// the same name: the composite one (built from tfjs ops) for cpu, wasm, webgpu and tensorflow, fused CUDA
// kernels for `cuda` (@virnucpro/tfjs-backend-cuda). All float tensors are 'float32' to tfjs (a backend
// may store them in fp16/bf16); index tensors are 'int32'.
import type { NamedAttrMap, TensorInfo } from '@tensorflow/tfjs-core';
import type { PackedLayout } from './packed-layout.js';

/**
 * y = act(x·weight + bias) + residual. x [N, in], weight [in, out] (pre-transposed at load), bias [out],
 * residual [N, out]. `activation` 'gelu' is the exact erf GELU. The residual input is the fused residual add.
 */
export const VnpLinear = 'VnpLinear';
/** `cuSeqlens`: the packed layout of x's rows (int32 [S+1]), for a backend that corrects its rounding per sequence. */
export type VnpLinearInputs = { x: TensorInfo; weight: TensorInfo; bias?: TensorInfo; residual?: TensorInfo; cuSeqlens?: TensorInfo };
export interface VnpLinearAttrs extends NamedAttrMap {
  activation: 'none' | 'gelu';
}

/** LayerNorm over the last axis of x [N, d] (biased variance, as torch), then ·gamma + beta. */
export const VnpLayerNorm = 'VnpLayerNorm';
export type VnpLayerNormInputs = { x: TensorInfo; gamma: TensorInfo; beta: TensorInfo };
export interface VnpLayerNormAttrs extends NamedAttrMap {
  epsilon: number;
  /** The output is read only as `VnpLinear`'s x: a backend whose linear layers read their own lower-precision copy of
   * x (cuda fp8: E4M3 rows) may write only that copy, and give the output's values from it if they are read. */
  linearInputOnly: boolean;
}

/** GeGLU: x [N, 2f] → [N, f] = gelu(x[:, :f]) · x[:, f:] (exact erf GELU on the first half). */
export const VnpGeglu = 'VnpGeglu';
export type VnpGegluInputs = { x: TensorInfo };

/**
 * Rotary embedding on the q and k parts of a fused projection qkv [N, 3·H·hd] (q | k | v, head h of each
 * part = columns [h·hd, (h+1)·hd)). For row n at position p = positions[n], every q and k head becomes
 * x·cos[p] + swapHalves(x)·sinSigned[p] (swapHalves exchanges the two halves of the head; sinSigned holds
 * −sin in its first half, +sin in its second: rotate_half). v is copied unchanged. cos, sinSigned [P, hd].
 */
export const VnpRotaryQkv = 'VnpRotaryQkv';
export type VnpRotaryQkvInputs = { qkv: TensorInfo; cos: TensorInfo; sinSigned: TensorInfo; positions: TensorInfo };
export interface VnpRotaryQkvAttrs extends NamedAttrMap {
  numHeads: number;
}

/**
 * Multi-head self-attention inside each segment of a packed stream. qkv [N, 3·H·hd] as for VnpRotaryQkv,
 * cuSeqlens int32 [S+1] (segment offsets, `layout.offsetsTensor`). Output [N, H·hd]: softmax(scale·q·kᵀ
 * − slope_h·|i−j|)·v per segment and head, fp32 softmax. `alibiSlopes` (H values) is optional.
 * `layout` is the host-side layout of the same batch (the composite kernels plan their padded groups from it).
 * With cos, sinSigned and positions (as for VnpRotaryQkv), q and k are first rotated as VnpRotaryQkv rotates them;
 * positions are the layout's (`layout.positionsTensor`: each row's offset in its segment), so a kernel may take a
 * row's position from cuSeqlens instead of reading them.
 */
export const VnpPackedAttention = 'VnpPackedAttention';
export type VnpPackedAttentionInputs = { qkv: TensorInfo; cuSeqlens: TensorInfo; cos?: TensorInfo; sinSigned?: TensorInfo; positions?: TensorInfo };
// Not `extends NamedAttrMap` (as tfjs-core's own *Attrs interfaces are not): a null `alibiSlopes` is no tfjs
// Attribute value. Callers pass it as `attrs as unknown as NamedAttrMap`, kernels read `attrs as unknown as
// VnpPackedAttentionAttrs`.
export interface VnpPackedAttentionAttrs {
  numHeads: number;
  scale: number;
  /** Longest segment of the batch. */
  maxSeqLen: number;
  alibiSlopes: number[] | null;
  layout: PackedLayout & NamedAttrMap;
}

/**
 * Mean of each segment's rows of x [N, d] → [S, d], leaving out `skipStart` rows at the start and `skipEnd`
 * at the end of every segment. Each segment is reduced on its own, in an order that depends only on its own
 * rows, so its mean is bit-identical in any batch (resumed runs reproduce undisturbed ones).
 */
export const VnpSegmentMean = 'VnpSegmentMean';
export type VnpSegmentMeanInputs = { x: TensorInfo; cuSeqlens: TensorInfo };
export interface VnpSegmentMeanAttrs extends NamedAttrMap {
  skipStart: number;
  skipEnd: number;
  layout: PackedLayout & NamedAttrMap;
}

/**
 * Embedding gather with a row scale: out[n] = table[ids[n]] · (rowScale ? rowScale[n] : scale).
 * ids int32 [N], table [V, d], rowScale float32 [N] (optional; ESM-2's token-dropout factors).
 */
export const VnpEmbedding = 'VnpEmbedding';
export type VnpEmbeddingInputs = { ids: TensorInfo; table: TensorInfo; rowScale?: TensorInfo };
export interface VnpEmbeddingAttrs extends NamedAttrMap {
  scale: number;
}

/** Every kernel name above, e.g. for a backend to check that it implements them all. */
export const vnpKernelNames = [
  VnpLinear, VnpLayerNorm, VnpGeglu, VnpRotaryQkv, VnpPackedAttention, VnpSegmentMean, VnpEmbedding,
] as const;

/**
 * A float tensor from 16-bit float bit patterns (IEEE half or bfloat16) packed two per element of the int32
 * tensor x (little-endian: element k holds value 2k in its low 16 bits, 2k+1 in its high ones), output [shape].
 * Optional: a backend that stores floats in 16 bits registers it so fp16 weights reach the GPU as they are; on
 * the others `halfToFloat` widens them on the host (see half-to-float.ts).
 */
export const VnpHalfToFloat = 'VnpHalfToFloat';
export type VnpHalfToFloatInputs = { x: TensorInfo };
export interface VnpHalfToFloatAttrs extends NamedAttrMap {
  shape: number[];
  format: 'float16' | 'bfloat16';
}
