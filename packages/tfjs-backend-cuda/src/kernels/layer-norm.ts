import { type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { VnpLayerNorm, type VnpLayerNormAttrs } from '@virnucpro/ops';
import type { CudaBackend } from '../backend-cuda.js';
import { layerNormSource } from '../cuda/layer-norm.js';

export const layerNormConfig: KernelConfig = {
  kernelName: VnpLayerNorm,
  backendName: 'cuda',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cuda = backend as CudaBackend;
    const { x, gamma, beta } = inputs as { x: TensorInfo; gamma: TensorInfo; beta: TensorInfo };
    const [rows, d] = x.shape;
    const y = cuda.makeOutput([rows, d]);
    if (rows === 0) return y;
    const threads = Math.min(1024, Math.max(32, 32 * Math.ceil(Math.min(d, 256) / 32)));
    cuda.launch(layerNormSource, 'layer_norm', [], [rows, 1, 1], [threads, 1, 1], d * 4, 'ppppif',
      cuda.ptr(x), cuda.ptr(gamma), cuda.ptr(beta), cuda.ptr(y), d, (attrs as VnpLayerNormAttrs).epsilon);
    return y;
  }) as KernelFunc,
};
