import type { KernelConfig, KernelFunc, TensorInfo } from '@tensorflow/tfjs-core';
import { VnpGeglu } from '@virnucpro/ops';
import type { OnednnBackend } from '../backend-onednn.js';

/** GeGLU, gelu(x[:, :f])·x[:, f:], in WebAssembly SIMD, its rows split among the backend's threads. */
export const gegluConfig: KernelConfig = {
  kernelName: VnpGeglu,
  backendName: 'onednn',
  kernelFunc: (({ inputs, backend }) => {
    const cpu = backend as OnednnBackend;
    const { x } = inputs as { x: TensorInfo };
    const [rows, twoF] = x.shape;
    const f = twoF / 2;
    const out = cpu.sharedFloats(rows * f);
    const input = cpu.sharedInput(cpu.floats(x));
    cpu.runRows('gegluRows', rows, ({ from, to }) => ({ x: input.values, out, from, to, f }));
    input.done();
    return cpu.makeTensorInfo([rows, f], 'float32', out);
  }) as KernelFunc,
};
