import type { KernelConfig, KernelFunc, TensorInfo } from '@tensorflow/tfjs-core';
import { VnpGeglu } from '@virnucpro/ops';
import type { OnednnBackend } from '../backend-onednn.js';

/**
 * GeGLU, gelu(x[:, :f])·x[:, f:], in WebAssembly SIMD; on every thread (rows split among the backend's helper
 * threads) when x is on a SharedArrayBuffer, as the linear layer that makes it leaves it.
 */
export const gegluConfig: KernelConfig = {
  kernelName: VnpGeglu,
  backendName: 'onednn',
  kernelFunc: (({ inputs, backend }) => {
    const cpu = backend as OnednnBackend;
    const { x } = inputs as { x: TensorInfo };
    const [rows, twoF] = x.shape;
    const f = twoF / 2;
    const values = cpu.floats(x);
    const workers = values.buffer instanceof SharedArrayBuffer ? cpu.rowWorkers() : undefined;
    const out = workers ? cpu.sharedFloats(rows * f) : new Float32Array(rows * f);
    const here = (from: number, to: number) => {
      const { wasm } = cpu;
      const n = to - from;
      const [xs, ys] = wasm.layout(n * twoF, n * f);
      wasm.f32(xs, n * twoF).set(values.subarray(from * twoF, to * twoF));
      wasm.kernels.geglu(xs, ys, n, f);
      out.set(wasm.f32(ys, n * f), from * f);
    };
    if (rows > 0 && workers) workers.geglu(values, out, rows, f, here);
    else if (rows > 0) here(0, rows);
    return cpu.makeTensorInfo([rows, f], 'float32', out);
  }) as KernelFunc,
};
