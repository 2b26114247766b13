import type { KernelConfig, KernelFunc, TensorInfo } from '@tensorflow/tfjs-core';
import { VnpLayerNorm, type VnpLayerNormAttrs } from '@virnucpro/ops';
import type { OnednnBackend } from '../backend-onednn.js';

/**
 * Layer norm per row in WebAssembly SIMD (two passes: mean, then squared deviations; biased variance as torch),
 * its rows split among the backend's threads.
 */
export const layerNormConfig: KernelConfig = {
  kernelName: VnpLayerNorm,
  backendName: 'onednn',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cpu = backend as OnednnBackend;
    const { x, gamma, beta } = inputs as { x: TensorInfo; gamma: TensorInfo; beta: TensorInfo };
    const [rows, d] = x.shape;
    const out = cpu.sharedFloats(rows * d);
    const input = cpu.sharedInput(cpu.floats(x));
    const g = cpu.floats(gamma), b = cpu.floats(beta), eps = (attrs as VnpLayerNormAttrs).epsilon;
    cpu.runRows('layerNormRows', rows, ({ from, to }) => ({ x: input.values, out, from, to, d, gamma: g, beta: b, eps }));
    input.done();
    return cpu.makeTensorInfo([rows, d], 'float32', out);
  }) as KernelFunc,
};
