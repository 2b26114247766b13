import { Cast, type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import type { CudaBackend } from '../backend-cuda.js';
import { runOnCpu } from '../cpu-fallback.js';

/** Cast to the same dtype shares the data; other casts (rare: index building) go through the cpu kernel. */
export const castConfig: KernelConfig = {
  kernelName: Cast,
  backendName: 'cuda',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const x = inputs.x as TensorInfo;
    const cuda = backend as CudaBackend;
    if (attrs!.dtype === x.dtype) {
      cuda.incRef(x.dataId);
      return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
    }
    return runOnCpu(Cast, inputs, attrs, cuda);
  }) as KernelFunc,
};
