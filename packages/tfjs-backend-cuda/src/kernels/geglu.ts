import { type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { VnpGeglu } from '@virnucpro/ops';
import { blocks, type CudaBackend } from '../backend-cuda.js';
import { elementwiseSource } from '../cuda/elementwise.js';
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
    if (f % vec === 0 && rows * (f / vec) < 2 ** 31) {
      cuda.launch(elementwiseSource, 'geglu_vec', [], blocks(rows * (f / vec)), [256, 1, 1], 0, 'ppii', cuda.ptr(x), cuda.ptr(y), rows, f);
    } else {
      cuda.launch(elementwiseSource, 'geglu', [], blocks(rows * f), [256, 1, 1], 0, 'ppii', cuda.ptr(x), cuda.ptr(y), rows, f);
    }
    return y;
  }) as KernelFunc,
};
