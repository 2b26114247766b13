import type { KernelConfig, KernelFunc, TensorInfo } from '@tensorflow/tfjs-core';
import { VnpGeglu } from '@virnucpro/ops';
import type { OnednnBackend } from '../backend-onednn.js';

/** GeGLU, gelu(x[:, :f])·x[:, f:], in WebAssembly SIMD. */
export const gegluConfig: KernelConfig = {
  kernelName: VnpGeglu,
  backendName: 'onednn',
  kernelFunc: (({ inputs, backend }) => {
    const cpu = backend as OnednnBackend;
    const { x } = inputs as { x: TensorInfo };
    const [rows, twoF] = x.shape;
    const f = twoF / 2;
    const out = new Float32Array(rows * f);
    if (rows > 0) {
      const { wasm } = cpu;
      const [xs, ys] = wasm.layout(rows * twoF, rows * f);
      wasm.f32(xs, rows * twoF).set(cpu.floats(x));
      wasm.kernels.geglu(xs, ys, rows, f);
      out.set(wasm.f32(ys, rows * f));
    }
    return cpu.makeTensorInfo([rows, f], 'float32', out);
  }) as KernelFunc,
};
