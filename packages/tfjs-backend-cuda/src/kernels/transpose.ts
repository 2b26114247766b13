import { Transpose, type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import type { CudaBackend } from '../backend-cuda.js';
import { runOnCpu } from '../cpu-fallback.js';
import { elementwiseSource } from '../cuda/elementwise.js';

/** 2-D float transposes (weights at load) on the GPU; other permutations through the cpu kernel. */
export const transposeConfig: KernelConfig = {
  kernelName: Transpose,
  backendName: 'cuda',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cuda = backend as CudaBackend;
    const x = inputs.x as TensorInfo;
    const perm = attrs!.perm as number[];
    if (x.shape.length !== 2 || perm[0] !== 1 || x.dtype !== 'float32') return runOnCpu(Transpose, inputs, attrs, cuda);
    const [rows, cols] = x.shape;
    const out = cuda.makeOutput([cols, rows]);
    if (rows * cols > 0) {
      cuda.launch(elementwiseSource, 'transpose2d', [], [Math.ceil(cols / 32), Math.ceil(rows / 32), 1], [32, 8, 1], 0, 'ppii', cuda.ptr(x), cuda.ptr(out), rows, cols);
    }
    return out;
  }) as KernelFunc,
};
