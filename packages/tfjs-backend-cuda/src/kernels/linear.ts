import { type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { VnpLinear, type VnpLinearAttrs } from '@virnucpro/ops';
import { blocks, type CudaBackend } from '../backend-cuda.js';
import { elementwiseSource } from '../cuda/elementwise.js';
import { elementsPerWord } from '../precision.js';

/**
 * y = act(x·W + b) + residual: one cuBLASLt GEMM with the bias epilogue and the residual as C (β = 1),
 * then the erf GELU in place (cuBLASLt's GELU epilogue is the tanh approximation). With both a GELU and a
 * residual (no model does this) the residual is added after the GELU by a separate kernel.
 */
export const linearConfig: KernelConfig = {
  kernelName: VnpLinear,
  backendName: 'cuda',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cuda = backend as CudaBackend;
    const { x, weight, bias, residual } = inputs as { x: TensorInfo; weight: TensorInfo; bias?: TensorInfo; residual?: TensorInfo };
    const gelu = (attrs as VnpLinearAttrs).activation === 'gelu';
    const [rows, inner] = x.shape;
    const cols = weight.shape[1];
    const y = cuda.makeOutput([rows, cols]);
    if (rows === 0) return y;
    const fusedResidual = residual && !gelu ? cuda.ptr(residual) : undefined;
    cuda.gemm(rows, inner, cols, cuda.ptr(x), cuda.ptr(weight), cuda.ptr(y), bias && cuda.ptr(bias), fusedResidual);
    const n = rows * cols;
    if (gelu) {
      const vec = elementsPerWord(cuda.floatStorage);
      if (n % vec === 0) cuda.launch(elementwiseSource, 'gelu_inplace_vec', [], blocks(n / vec), [256, 1, 1], 0, 'pl', cuda.ptr(y), n / vec);
      else cuda.launch(elementwiseSource, 'gelu_inplace', [], blocks(n), [256, 1, 1], 0, 'pl', cuda.ptr(y), n);
    }
    if (gelu && residual) {
      cuda.launch(elementwiseSource, 'binary', [], blocks(n), [256, 1, 1], 0, 'pppliii', cuda.ptr(y), cuda.ptr(residual), cuda.ptr(y), n, 0, cols, 0);
    }
    return y;
  }) as KernelFunc,
};
