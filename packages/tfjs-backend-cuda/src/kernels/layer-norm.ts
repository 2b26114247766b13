import { type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { VnpLayerNorm, type VnpLayerNormAttrs } from '@virnucpro/ops';
import type { CudaBackend, Fp8Rows } from '../backend-cuda.js';
import { layerNormSource } from '../cuda/layer-norm.js';
import { elementsPerWord } from '../precision.js';

/** Rows per block of the warp-per-row kernel, and the longest row it takes in 16-byte words per lane (12: rows of up
 * to 3,072 fp16/bf16 or 1,536 fp32 elements, 96 fp32 registers a lane); longer rows take the block-per-row kernels. */
const LN_ROWS_PER_BLOCK = 8;
const LN_MAX_WORDS_PER_LANE = 12;

export const layerNormConfig: KernelConfig = {
  kernelName: VnpLayerNorm,
  backendName: 'cuda',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cuda = backend as CudaBackend;
    const { x, gamma, beta } = inputs as { x: TensorInfo; gamma: TensorInfo; beta: TensorInfo };
    const [rows, d] = x.shape;
    const y = cuda.makeOutput([rows, d]);
    if (rows === 0) return y;
    const { epsilon: eps, linearInputOnly } = attrs as VnpLayerNormAttrs;
    const args = [cuda.ptr(x), cuda.ptr(gamma), cuda.ptr(beta), cuda.ptr(y), d, eps] as const;
    const vec = elementsPerWord(cuda.floatStorage);
    const words = d / vec;
    const wordsPerLane = Math.ceil(words / 32);
    if (cuda.layerNormPerWarp && cuda.floatStorage === 'bf16' && d % vec === 0 && wordsPerLane <= LN_MAX_WORDS_PER_LANE) {
      // One warp per row, eight rows per block (layerNormWarp): the statistics need no shared memory or block
      // barrier. Compiled per words-per-lane (ESM-2 3B: 10 in bf16; DNABERT-S: 3). bf16 storage only (bf16 and fp8):
      // the precisions its A/B and batch-invariance tests ran in; fp16 and fp32 keep the block-per-row kernels.
      const defines = [`-DLN_WORDS=${wordsPerLane}`];
      const grid: [number, number, number] = [Math.ceil(rows / LN_ROWS_PER_BLOCK), 1, 1];
      const block: [number, number, number] = [32 * LN_ROWS_PER_BLOCK, 1, 1];
      const warpArgs = [cuda.ptr(x), cuda.ptr(gamma), cuda.ptr(beta), cuda.ptr(y), rows, d, eps] as const;
      if (cuda.fp8Active && d % 16 === 0) {
        const q = fp8NormRows(cuda, y, rows, d, gamma, beta);
        const rowsOnly = q.perTensor === true && linearInputOnly && cuda.fp8NormRowsOnly;
        const kernel = rowsOnly ? 'layer_norm_warp_fp8_static_rows' : q.perTensor ? 'layer_norm_warp_fp8_static' : 'layer_norm_warp_fp8';
        cuda.launch(layerNormSource, kernel, defines, grid, block, 0, 'ppppiifpp', ...warpArgs, q.data, q.scales);
        // Only the FP8 GEMM that follows reads it: T is made from the E4M3 rows if anything else does (materialise).
        if (rowsOnly) cuda.markStale(y);
      } else {
        cuda.launch(layerNormSource, 'layer_norm_warp', defines, grid, block, 0, 'ppppiif', ...warpArgs);
      }
    } else if (d % vec === 0 && words <= 1024) {
      // One 16-byte word per thread, the row in registers. fp8: also the row's e4m3 bytes and scale, the input of
      // the FP8 GEMM that follows (qkv or fc1); written even when both stay bf16, since the linear kernel tells qkv
      // and fc1 from out by these rows' source (without them qkv and fc1 ran in fp8 as 'out' in the qkv,fc1 A/B).
      const block: [number, number, number] = [32 * Math.ceil(words / 32), 1, 1];
      if (cuda.fp8Active && d % 16 === 0) {
        const q = fp8NormRows(cuda, y, rows, d, gamma, beta);
        cuda.launch(layerNormSource, q.perTensor ? 'layer_norm_vec_fp8_static' : 'layer_norm_vec_fp8', [], [rows, 1, 1], block, 0, 'ppppifpp', ...args, q.data, q.scales);
      } else {
        cuda.launch(layerNormSource, 'layer_norm_vec', [], [rows, 1, 1], block, 0, 'ppppif', ...args);
      }
    } else {
      const threads = Math.min(1024, Math.max(32, 32 * Math.ceil(Math.min(d, 256) / 32)));
      cuda.launch(layerNormSource, 'layer_norm', [], [rows, 1, 1], [threads, 1, 1], d * 4, 'ppppif', ...args);
    }
    return y;
  }) as KernelFunc,
};

/** The output's fp8 rows for the FP8 GEMM that follows: with the static scale of gamma and beta (fp8StaticScales),
 * else one scale per row. */
function fp8NormRows(cuda: CudaBackend, y: TensorInfo, rows: number, d: number, gamma: TensorInfo, beta: TensorInfo): Fp8Rows {
  return cuda.attachFp8(y, rows, d, 'norm', cuda.fp8StaticScales ? cuda.fp8NormBounds(gamma, beta) : undefined);
}
