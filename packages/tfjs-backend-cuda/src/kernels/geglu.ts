import { type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { VnpGeglu } from '@virnucpro/ops';
import { blocks, type CudaBackend } from '../backend-cuda.js';
import { elementwiseSource } from '../cuda/elementwise.js';
import { fp8Source } from '../cuda/fp8.js';
import { gegluQuantizeLaunch } from '../fp8-quantize-rows.js';
import { elementsPerWord } from '../precision.js';

export const gegluConfig: KernelConfig = {
  kernelName: VnpGeglu,
  backendName: 'cuda',
  kernelFunc: (({ inputs, backend }) => {
    const cuda = backend as CudaBackend;
    const x = inputs.x as TensorInfo;
    const [rows, twoF] = x.shape;
    const f = twoF / 2;
    const y = cuda.makeOutput([rows, f]);
    if (rows === 0) return y;
    // 16-byte words when both halves of every row start on one (f divisible by the elements per word).
    const vec = elementsPerWord(cuda.floatStorage);
    // fp8 with fc2 as an FP8 GEMM (inner divisible by 16): the output's fp8 rows in the same pass, its T written only
    // if something else reads it (markStale); tagged 'gelu' as fc1's GELU output is, so fc2 is told apart.
    const fused = cuda.fp8Active && cuda.fp8GegluFused && f % 16 === 0 && !cuda.fp8Bf16Layers.has('fc2') ? gegluQuantizeLaunch(f, vec) : undefined;
    if (fused) {
      const q = cuda.attachFp8(y, rows, f, 'gelu');
      cuda.launch(fp8Source, fused.kernel, [], [rows, 1, 1], fused.block, 0, 'pppi', cuda.ptr(x), q.data, q.scales, f);
      cuda.markStale(y);
      return y;
    }
    if (f % vec === 0 && rows * (f / vec) < 2 ** 31) {
      cuda.launch(elementwiseSource, 'geglu_vec', [], blocks(rows * (f / vec)), [256, 1, 1], 0, 'ppii', cuda.ptr(x), cuda.ptr(y), rows, f);
    } else {
      cuda.launch(elementwiseSource, 'geglu', [], blocks(rows * f), [256, 1, 1], 0, 'ppii', cuda.ptr(x), cuda.ptr(y), rows, f);
    }
    return y;
  }) as KernelFunc,
};
