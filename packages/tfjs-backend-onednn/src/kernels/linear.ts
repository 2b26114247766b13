import type { KernelConfig, KernelFunc, TensorInfo } from '@tensorflow/tfjs-core';
import { VnpLinear, type VnpLinearAttrs } from '@virnucpro/ops';
import type { OnednnBackend } from '../backend-onednn.js';
import { GEMM_ROWS, rowTiledGemm, rowTiledGemmInto } from '../row-tiled-gemm.js';
import { addressOf } from '../wasm-kernels.js';

/**
 * y = act(x·W + b) + residual: oneDNN's GEMM in blocks of GEMM_ROWS rows, then bias, GELU and residual in one SIMD
 * pass. Without bias, residual or GELU (DNABERT-S's GeGLU input, its widest product) the GEMM writes the output
 * itself: the same calls, so the same bytes, without a copy on the main thread.
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
    const epilogue = Boolean(bias || residual || gelu);
    // Without an epilogue (a GeGLU input) the output is shared, so that the next kernel can split it among threads.
    const out = epilogue ? new Float32Array(rows * n) : cpu.sharedFloats(rows * n);
    if (rows > 0 && !epilogue) {
      const { wasm } = cpu;
      const [pad, tail] = wasm.layout(GEMM_ROWS * k, GEMM_ROWS * n);
      const xs = cpu.floats(x);
      rowTiledGemmInto(cpu.onednn, wasm, xs, addressOf(xs), rows, k, addressOf(cpu.floats(weight)), n, out, addressOf(out), pad, tail);
    } else if (rows > 0) {
      const { wasm } = cpu;
      const blocks = Math.ceil(rows / GEMM_ROWS) * GEMM_ROWS;
      const [y, pad, b, res] = wasm.layout(blocks * n, GEMM_ROWS * k, bias ? n : 0, residual ? rows * n : 0);
      const xs = cpu.floats(x);
      rowTiledGemm(cpu.onednn, wasm, xs, addressOf(xs), rows, k, addressOf(cpu.floats(weight)), n, y, pad);
      if (bias) wasm.f32(b, n).set(cpu.floats(bias));
      if (residual) wasm.f32(res, rows * n).set(cpu.floats(residual));
      wasm.kernels.linearEpilogue(y, rows, n, bias ? b : 0, residual ? res : 0, gelu ? 1 : 0);
      out.set(wasm.f32(y, rows * n));
    }
    return cpu.makeTensorInfo([rows, n], 'float32', out);
  }) as KernelFunc,
};
