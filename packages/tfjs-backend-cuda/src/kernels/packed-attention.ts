import { type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { VnpPackedAttention, type VnpPackedAttentionAttrs, type VnpPackedAttentionInputs } from '@virnucpro/ops';
import { blocks, type CudaBackend } from '../backend-cuda.js';
import type { DevicePtr } from '../cuda-driver.js';
import { attentionMmaSharedBytes, attentionMmaSource } from '../cuda/attention-mma.js';
import { attentionSimpleSource } from '../cuda/attention-simple.js';
import { fp8Source } from '../cuda/fp8.js';
import { rotateQkv } from './rotary-qkv.js';

/**
 * Tensor-core flash attention for fp16/bf16 storage and head sizes that are multiples of 16 (≤ 128), rotating
 * q and k as it loads them when given rotary tables; the exact fp32 CUDA-core kernel otherwise (fp32 parity,
 * odd head sizes), after a rotary pass of its own.
 * fp8 with static scales: where a linear layer on a layer norm's static rows made qkv (fp8AttentionScales), the
 * output leaves as E4M3 rows with the static scale of qkv's value columns and no T: the `out` GEMM's input.
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
      // No positions: the op's are its layout's (each row's offset in its segment), which the kernel takes from the row.
      const tables = rotary ? [cuda.ptr(rotary.cos), cuda.ptr(rotary.sinSigned)] : [0, 0];
      const fp8 = fp8Output(cuda, qkv, y, rows, d);
      const defines = [`-DHD=${hd}`, ...(rotary ? ['-DROTARY'] : []), ...(alibiSlopes ? ['-DALIBI'] : []), ...(cuda.attentionMinBlocks ? [`-DMIN_BLOCKS=${cuda.attentionMinBlocks}`] : []), ...(fp8 ? ['-DFP8_OUT'] : [])];
      cuda.launch(attentionMmaSource, 'attention_mma', defines, grid, [128, 1, 1], attentionMmaSharedBytes(hd), 'ppppifpppp',
        cuda.ptr(qkv), cuda.ptr(cuSeqlens), slopes, cuda.ptr(y), H, scale, ...tables, fp8?.data ?? 0, fp8?.outScales ?? 0);
      if (fp8) cuda.markStale(y);
      return y;
    }
    const rotated: TensorInfo | undefined = rotary && rotateQkv(cuda, qkv, rotary.cos, rotary.sinSigned, rotary.positions, H);
    cuda.launch(attentionSimpleSource, 'attention_simple', [`-DHD=${hd}`], grid, [64, 1, 1], 0, 'ppppifi',
      cuda.ptr(rotated ?? qkv), cuda.ptr(cuSeqlens), slopes, cuda.ptr(y), H, scale, alibiSlopes ? 1 : 0);
    if (rotated) cuda.disposeIntermediateTensorInfo(rotated);
    return y;
  }) as KernelFunc,
};

/** fp8: the output's E4M3 rows, each with the static scale (`out`'s outer-vector GEMM takes a scale per row), and
 * where the kernel finds 1/scale, when the `out` layer that reads them runs in fp8 and qkv's producer gives a static
 * bound; else undefined (T, as in bf16). */
function fp8Output(cuda: CudaBackend, qkv: TensorInfo, y: TensorInfo, rows: number, d: number): { data: DevicePtr; outScales: DevicePtr } | undefined {
  if (!cuda.fp8Active || d % 16 !== 0 || cuda.fp8Bf16Layers.has('out')) return undefined;
  const scales = cuda.fp8AttentionScales(qkv); // [bound, scale, 1/scale]
  if (scales === undefined) return undefined;
  const q = cuda.attachFp8(y, rows, d, 'attention');
  cuda.launch(fp8Source, 'fill_from', [], blocks(rows), [256, 1, 1], 0, 'ppi', q.scales, scales + 4, rows);
  return { data: q.data, outScales: scales };
}
