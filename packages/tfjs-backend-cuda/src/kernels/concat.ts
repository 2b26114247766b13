import { Concat, util, type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { blocks, type CudaBackend } from '../backend-cuda.js';
import { runOnCpu } from '../cpu-fallback.js';
import { elementwiseSource } from '../cuda/elementwise.js';
import { bytesPerElement } from '../precision.js';

/**
 * Concat of float tensors along any axis, as copies of [outer, inner·width] blocks (outer = product of the
 * dims before the axis): each input lands at its column offset of the flattened [outer, total] output.
 */
export const concatConfig: KernelConfig = {
  kernelName: Concat,
  backendName: 'cuda',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cuda = backend as CudaBackend;
    const tensors = (Array.isArray(inputs) ? inputs : Object.values(inputs)) as TensorInfo[];
    if (tensors.some((t) => t.dtype !== 'float32')) return runOnCpu(Concat, inputs, attrs, cuda);
    const rank = tensors[0].shape.length;
    const axis = util.parseAxisParam(attrs!.axis as number, tensors[0].shape)[0];
    const outShape = [...tensors[0].shape];
    outShape[axis] = tensors.reduce((a, t) => a + t.shape[axis], 0);
    const out = cuda.makeOutput(outShape);
    const outer = util.sizeFromShape(outShape.slice(0, axis));
    const total = util.sizeFromShape(outShape.slice(axis));
    const elementBytes = bytesPerElement(cuda.floatStorage);
    let offset = 0;
    for (const t of tensors) {
      const cols = util.sizeFromShape(t.shape.slice(axis));
      if (cols > 0 && outer > 0) {
        cuda.launch(elementwiseSource, 'copy2d', [], blocks(outer * cols), [256, 1, 1], 0, 'ppiiii',
          cuda.ptr(t), cuda.ptr(out) + offset * elementBytes, outer, cols, cols, total);
      }
      offset += cols;
    }
    void rank;
    return out;
  }) as KernelFunc,
};
