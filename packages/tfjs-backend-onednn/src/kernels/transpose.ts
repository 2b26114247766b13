import { getKernel, Transpose, type KernelConfig, type KernelFunc, type TensorInfo, type TransposeAttrs } from '@tensorflow/tfjs-core';
import type { OnednnBackend } from '../backend-onednn.js';

/** Tile edge of the blocked copy: a 64×64 float tile of source and destination stays in L1/L2. */
const TILE = 64;

/**
 * Transpose of a float32 matrix ([r, c] → [c, r]) as a blocked copy; every other transpose goes to tfjs' cpu
 * kernel. The models transpose each linear weight once at load, and tfjs' generic kernel (index arithmetic per
 * element) made that a large part of loading ESM-2 3B on a CPU (2.8 G values). A copy: the bytes are the same.
 */
export const transposeConfig: KernelConfig = {
  kernelName: Transpose,
  backendName: 'onednn',
  kernelFunc: ((args) => {
    const { inputs, attrs, backend } = args;
    const { x } = inputs as { x: TensorInfo };
    const { perm } = attrs as unknown as TransposeAttrs;
    if (x.dtype !== 'float32' || x.shape.length !== 2 || perm[0] !== 1 || perm[1] !== 0) {
      return (getKernel(Transpose, 'cpu')!.kernelFunc as KernelFunc)({ ...args, backend });
    }
    const cpu = backend as OnednnBackend;
    const [rows, cols] = x.shape;
    const source = cpu.floats(x);
    const out = new Float32Array(rows * cols);
    for (let r0 = 0; r0 < rows; r0 += TILE) {
      const r1 = Math.min(rows, r0 + TILE);
      for (let c0 = 0; c0 < cols; c0 += TILE) {
        const c1 = Math.min(cols, c0 + TILE);
        for (let r = r0; r < r1; r++) {
          const from = r * cols;
          for (let c = c0; c < c1; c++) out[c * rows + r] = source[from + c];
        }
      }
    }
    return cpu.makeTensorInfo([cols, rows], 'float32', out);
  }) as KernelFunc,
};
