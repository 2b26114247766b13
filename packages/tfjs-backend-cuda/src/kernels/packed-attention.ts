import { type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { VnpPackedAttention, type VnpPackedAttentionAttrs } from '@virnucpro/ops';
import type { CudaBackend } from '../backend-cuda.js';
import { attentionMmaSharedBytes, attentionMmaSource } from '../cuda/attention-mma.js';
import { attentionSimpleSource } from '../cuda/attention-simple.js';

/**
 * Tensor-core flash attention for fp16/bf16 storage and head sizes that are multiples of 16 (≤ 128); the
 * exact fp32 CUDA-core kernel otherwise (fp32 parity, odd head sizes).
 */
export const packedAttentionConfig: KernelConfig = {
  kernelName: VnpPackedAttention,
  backendName: 'cuda',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cuda = backend as CudaBackend;
    const { qkv, cuSeqlens } = inputs as { qkv: TensorInfo; cuSeqlens: TensorInfo };
    const { numHeads: H, scale, maxSeqLen, alibiSlopes } = attrs as unknown as VnpPackedAttentionAttrs;
    const [rows, width] = qkv.shape;
    const d = width / 3;
    const hd = d / H;
    const segments = cuSeqlens.shape[0] - 1;
    const y = cuda.makeOutput([rows, d]);
    if (rows === 0) return y;
    if (hd > 128) throw new Error(`cuda packed attention: head size ${hd} > 128 is not supported`);
    const slopes = alibiSlopes ? cuda.constantFloats(alibiSlopes) : 0;
    const tensorCores = cuda.floatStorage !== 'f32' && hd % 16 === 0 && d % 8 === 0;
    const args = [cuda.ptr(qkv), cuda.ptr(cuSeqlens), slopes, cuda.ptr(y), H, scale, alibiSlopes ? 1 : 0] as const;
    const grid: [number, number, number] = [Math.ceil(maxSeqLen / 64), segments, H];
    if (tensorCores) {
      cuda.launch(attentionMmaSource, 'attention_mma', [`-DHD=${hd}`], grid, [128, 1, 1], attentionMmaSharedBytes(hd), 'ppppifi', ...args);
    } else {
      cuda.launch(attentionSimpleSource, 'attention_simple', [`-DHD=${hd}`], grid, [64, 1, 1], 0, 'ppppifi', ...args);
    }
    return y;
  }) as KernelFunc,
};
