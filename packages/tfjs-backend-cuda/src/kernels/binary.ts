import { Add, backend_util, Multiply, RealDiv, Sub, util, type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { blocks, type CudaBackend } from '../backend-cuda.js';
import { runOnCpu } from '../cpu-fallback.js';
import { elementwiseSource } from '../cuda/elementwise.js';

const ops: Record<string, number> = { [Add]: 0, [Sub]: 1, [Multiply]: 2, [RealDiv]: 3 };
const commutative = new Set([Add, Multiply]);

/**
 * Float binary ops where b has a's shape, is a scalar, or is a row vector over a's last axis (a and b swap
 * for commutative ops). Other broadcasts and int tensors use the cpu kernel.
 */
function binaryKernel(kernelName: string): KernelConfig {
  const kernelFunc = (({ inputs, attrs, backend }) => {
    const cuda = backend as CudaBackend;
    let a = inputs.a as TensorInfo;
    let b = inputs.b as TensorInfo;
    const outShape = backend_util.assertAndGetBroadcastShape(a.shape, b.shape);
    const mode = (x: TensorInfo, y: TensorInfo) => {
      if (!util.arraysEqual(x.shape, outShape)) return -1;
      if (util.arraysEqual(y.shape, outShape)) return 0;
      if (util.sizeFromShape(y.shape) === 1) return 1;
      if (y.shape.length >= 1 && y.shape[y.shape.length - 1] === outShape[outShape.length - 1] && util.sizeFromShape(y.shape) === y.shape[y.shape.length - 1]) return 2;
      return -1;
    };
    let m = a.dtype === 'float32' && b.dtype === 'float32' ? mode(a, b) : -1;
    if (m < 0 && commutative.has(kernelName) && a.dtype === 'float32' && b.dtype === 'float32') {
      m = mode(b, a);
      if (m >= 0) [a, b] = [b, a];
    }
    if (m < 0) return runOnCpu(kernelName, inputs, attrs, cuda);
    const out = cuda.makeOutput(outShape);
    const n = util.sizeFromShape(outShape);
    if (n > 0) {
      cuda.launch(elementwiseSource, 'binary', [], blocks(n), [256, 1, 1], 0, 'pppliii',
        cuda.ptr(a), cuda.ptr(b), cuda.ptr(out), n, m, outShape[outShape.length - 1] ?? 1, ops[kernelName]);
    }
    return out;
  }) as KernelFunc;
  return { kernelName, backendName: 'cuda', kernelFunc };
}

export const binaryConfigs: KernelConfig[] = [Add, Sub, Multiply, RealDiv].map(binaryKernel);
