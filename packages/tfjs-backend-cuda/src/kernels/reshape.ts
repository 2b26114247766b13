import { Identity, Reshape, util, type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import type { CudaBackend } from '../backend-cuda.js';

/** Reshape and Identity share the input's device data (a new view, reference-counted): no copy. */
function share(backend: CudaBackend, x: TensorInfo, shape: number[]): TensorInfo {
  backend.incRef(x.dataId);
  return { dataId: x.dataId, shape, dtype: x.dtype };
}

export const reshapeConfig: KernelConfig = {
  kernelName: Reshape,
  backendName: 'cuda',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const x = inputs.x as TensorInfo;
    const shape = util.inferFromImplicitShape([...(attrs!.shape as number[])], util.sizeFromShape(x.shape));
    return share(backend as CudaBackend, x, shape);
  }) as KernelFunc,
};

export const identityConfig: KernelConfig = {
  kernelName: Identity,
  backendName: 'cuda',
  kernelFunc: (({ inputs, backend }) => share(backend as CudaBackend, inputs.x as TensorInfo, (inputs.x as TensorInfo).shape)) as KernelFunc,
};
