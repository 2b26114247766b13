import { type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { VnpPackedAttention, type VnpPackedAttentionAttrs, type VnpPackedAttentionInputs } from '@virnucpro/ops';
import type { CudaBackend } from '../backend-cuda.js';
import { attentionMmaSharedBytes, attentionMmaSource } from '../cuda/attention-mma.js';
import { attentionSimpleSource } from '../cuda/attention-simple.js';
import { rotateQkv } from './rotary-qkv.js';

/**
 * Tensor-core flash attention for fp16/bf16 storage and head sizes that are multiples of 16 (≤ 128), rotating
 * q and k as it loads them when given rotary tables; the exact fp32 CUDA-core kernel otherwise (fp32 parity,
 * odd head sizes), after a rotary pass of its own.
 */
export const packedAttentionConfig: KernelConfig = {
  kernelName: VnpPackedAttention,
  backendName: 'cuda',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cuda = backend as CudaBackend;
    const { qkv, cuSeqlens, cos, sinSigned, positions } = inputs as unknown as VnpPackedAttentionInputs;
    const { numHeads: H, scale, maxSeqLen, alibiSlopes } = attrs as unknown as VnpPackedAttentionAttrs;
    const [rows, width] = qkv.shape;
    const d = width / 3;
    const hd = d / H;
    const segments = cuSeqlens.shape[0] - 1;
    const y = cuda.makeOutput([rows, d]);
    if (rows === 0) return y;
    if (hd > 128) throw new Error(`cuda packed attention: head size ${hd} > 128 is not supported`);
    const slopes = alibiSlopes ? cuda.constantFloats(alibiSlopes) : 0;
    const rotary = cos && sinSigned && positions ? { cos, sinSigned, positions } : undefined;
    const tensorCores = cuda.floatStorage !== 'f32' && hd % 16 === 0 && d % 8 === 0;
    const grid: [number, number, number] = [Math.ceil(maxSeqLen / 64), segments, H];
    if (tensorCores) {
      const tables = rotary ? [cuda.ptr(rotary.cos), cuda.ptr(rotary.sinSigned), cuda.ptr(rotary.positions)] : [0, 0, 0];
      const defines = [`-DHD=${hd}`, ...(rotary ? ['-DROTARY'] : []), ...(cuda.attentionMinBlocks ? [`-DMIN_BLOCKS=${cuda.attentionMinBlocks}`] : [])];
      cuda.launch(attentionMmaSource, 'attention_mma', defines, grid, [128, 1, 1], attentionMmaSharedBytes(hd), 'ppppifippp',
        cuda.ptr(qkv), cuda.ptr(cuSeqlens), slopes, cuda.ptr(y), H, scale, alibiSlopes ? 1 : 0, ...tables);
      return y;
    }
    const rotated: TensorInfo | undefined = rotary && rotateQkv(cuda, qkv, rotary.cos, rotary.sinSigned, rotary.positions, H);
    cuda.launch(attentionSimpleSource, 'attention_simple', [`-DHD=${hd}`], grid, [64, 1, 1], 0, 'ppppifi',
      cuda.ptr(rotated ?? qkv), cuda.ptr(cuSeqlens), slopes, cuda.ptr(y), H, scale, alibiSlopes ? 1 : 0);
    if (rotated) cuda.disposeIntermediateTensorInfo(rotated);
    return y;
  }) as KernelFunc,
};
