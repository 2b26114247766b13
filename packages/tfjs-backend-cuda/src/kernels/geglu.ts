import { type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { VnpGeglu } from '@virnucpro/ops';
import { blocks, type CudaBackend } from '../backend-cuda.js';
import { elementwiseSource } from '../cuda/elementwise.js';

export const gegluConfig: KernelConfig = {
  kernelName: VnpGeglu,
  backendName: 'cuda',
  kernelFunc: (({ inputs, backend }) => {
    const cuda = backend as CudaBackend;
    const x = inputs.x as TensorInfo;
    const [rows, twoF] = x.shape;
    const f = twoF / 2;
    const y = cuda.makeOutput([rows, f]);
    if (rows > 0) cuda.launch(elementwiseSource, 'geglu', [], blocks(rows * f), [256, 1, 1], 0, 'ppii', cuda.ptr(x), cuda.ptr(y), rows, f);
    return y;
  }) as KernelFunc,
};
