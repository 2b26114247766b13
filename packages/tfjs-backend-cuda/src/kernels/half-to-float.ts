import { type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { VnpHalfToFloat, type VnpHalfToFloatAttrs } from '@virnucpro/ops';
import { blocks, type CudaBackend } from '../backend-cuda.js';
import { castSource } from '../cuda/cast.js';

/** fp16/bf16 weights arrive as their own bits (packed in an int32 tensor) and become the storage type here. */
export const halfToFloatConfig: KernelConfig = {
  kernelName: VnpHalfToFloat,
  backendName: 'cuda',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cuda = backend as CudaBackend;
    const { shape, format } = attrs as VnpHalfToFloatAttrs;
    const y = cuda.makeOutput(shape);
    const n = shape.reduce((a, b) => a * b, 1);
    if (n === 0) return y;
    const kernel = format === 'float16' ? 'f16bits_to_t' : 'bf16bits_to_t';
    cuda.launch(castSource, kernel, [], blocks(n), [256, 1, 1], 0, 'ppl', cuda.ptr(inputs.x as TensorInfo), cuda.ptr(y), n);
    return y;
  }) as KernelFunc,
};
