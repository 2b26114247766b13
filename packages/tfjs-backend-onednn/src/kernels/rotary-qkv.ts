import type { KernelConfig, KernelFunc, TensorInfo } from '@tensorflow/tfjs-core';
import { VnpRotaryQkv, type VnpRotaryQkvAttrs } from '@virnucpro/ops';
import type { OnednnBackend } from '../backend-onednn.js';

/** Rotary q and k of a fused projection in WebAssembly SIMD (v copied unchanged). */
export const rotaryQkvConfig: KernelConfig = {
  kernelName: VnpRotaryQkv,
  backendName: 'onednn',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cpu = backend as OnednnBackend;
    const { qkv, cos, sinSigned, positions } = inputs as { qkv: TensorInfo; cos: TensorInfo; sinSigned: TensorInfo; positions: TensorInfo };
    const H = (attrs as VnpRotaryQkvAttrs).numHeads;
    const [rows, w3] = qkv.shape;
    const hd = w3 / 3 / H;
    const out = new Float32Array(rows * w3);
    if (rows > 0) {
      const { wasm } = cpu;
      const [q, c, sn, pos] = wasm.layout(rows * w3, cos.shape[0] * hd, sinSigned.shape[0] * hd, rows);
      wasm.f32(q, rows * w3).set(cpu.floats(qkv));
      wasm.f32(c, cos.shape[0] * hd).set(cpu.floats(cos));
      wasm.f32(sn, sinSigned.shape[0] * hd).set(cpu.floats(sinSigned));
      wasm.i32(pos, rows).set(cpu.ints(positions));
      wasm.kernels.rotaryQk(q, rows, H, hd, c, sn, pos);
      out.set(wasm.f32(q, rows * w3));
    }
    return cpu.makeTensorInfo([rows, w3], 'float32', out);
  }) as KernelFunc,
};
