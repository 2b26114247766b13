import type { KernelConfig, KernelFunc, TensorInfo } from '@tensorflow/tfjs-core';
import { VnpLayerNorm, type VnpLayerNormAttrs } from '@virnucpro/ops';
import type { OnednnBackend } from '../backend-onednn.js';

/** Layer norm per row in WebAssembly SIMD (two passes: mean, then squared deviations; biased variance as torch). */
export const layerNormConfig: KernelConfig = {
  kernelName: VnpLayerNorm,
  backendName: 'onednn',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cpu = backend as OnednnBackend;
    const { x, gamma, beta } = inputs as { x: TensorInfo; gamma: TensorInfo; beta: TensorInfo };
    const [rows, d] = x.shape;
    const out = new Float32Array(rows * d);
    if (rows > 0) {
      const { wasm } = cpu;
      const [xs, g, b] = wasm.layout(rows * d, d, d);
      wasm.f32(xs, rows * d).set(cpu.floats(x));
      wasm.f32(g, d).set(cpu.floats(gamma));
      wasm.f32(b, d).set(cpu.floats(beta));
      wasm.kernels.layerNorm(xs, xs, rows, d, g, b, (attrs as VnpLayerNormAttrs).epsilon);
      out.set(wasm.f32(xs, rows * d));
    }
    return cpu.makeTensorInfo([rows, d], 'float32', out);
  }) as KernelFunc,
};
