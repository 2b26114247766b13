import type { KernelConfig, KernelFunc, TensorInfo } from '@tensorflow/tfjs-core';
import { VnpLinear, type VnpLinearAttrs } from '@virnucpro/ops';
import type { OnednnBackend } from '../backend-onednn.js';
import { GEMM_ROWS, rowTiledGemmInto } from '../row-tiled-gemm.js';
import { addressOf } from '../wasm-kernels.js';

/**
 * y = act(x·W + b) + residual: oneDNN's GEMM in blocks of GEMM_ROWS rows, written straight into the output (a
 * SharedArrayBuffer), then bias, GELU and residual in one SIMD pass, its rows split among the backend's threads.
 */
export const linearConfig: KernelConfig = {
  kernelName: VnpLinear,
  backendName: 'onednn',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cpu = backend as OnednnBackend;
    const { x, weight, bias, residual } = inputs as { x: TensorInfo; weight: TensorInfo; bias?: TensorInfo; residual?: TensorInfo };
    const gelu = (attrs as VnpLinearAttrs).activation === 'gelu';
    const [rows, k] = x.shape;
    const n = weight.shape[1];
    const out = cpu.sharedFloats(rows * n);
    if (rows > 0) {
      const { wasm } = cpu;
      const [pad, tail] = wasm.layout(GEMM_ROWS * k, GEMM_ROWS * n);
      const xs = cpu.floats(x);
      rowTiledGemmInto(cpu.onednn, wasm, xs, addressOf(xs), rows, k, addressOf(cpu.floats(weight)), n, out, addressOf(out), pad, tail);
    }
    if (rows > 0 && (bias || residual || gelu)) {
      const b = bias ? cpu.floats(bias) : null;
      const res = residual ? cpu.sharedInput(cpu.floats(residual)) : undefined;
      cpu.runRows('epilogueRows', rows, ({ from, to }) => ({ y: out, from, to, cols: n, bias: b, residual: res?.values ?? null, gelu }));
      res?.done();
    }
    return cpu.makeTensorInfo([rows, n], 'float32', out);
  }) as KernelFunc,
};
