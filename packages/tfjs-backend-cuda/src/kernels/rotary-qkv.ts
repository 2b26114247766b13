import { type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { VnpRotaryQkv, type VnpRotaryQkvAttrs } from '@virnucpro/ops';
import { blocks, type CudaBackend } from '../backend-cuda.js';
import { rotarySource } from '../cuda/rotary.js';

export const rotaryQkvConfig: KernelConfig = {
  kernelName: VnpRotaryQkv,
  backendName: 'cuda',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cuda = backend as CudaBackend;
    const { qkv, cos, sinSigned, positions } = inputs as { qkv: TensorInfo; cos: TensorInfo; sinSigned: TensorInfo; positions: TensorInfo };
    const [rows, width] = qkv.shape;
    const d = width / 3;
    const hd = d / (attrs as VnpRotaryQkvAttrs).numHeads;
    const y = cuda.makeOutput([rows, width]);
    if (rows > 0) {
      cuda.launch(rotarySource, 'rotary_qkv', [], blocks(rows * width), [256, 1, 1], 0, 'pppppiii',
        cuda.ptr(qkv), cuda.ptr(cos), cuda.ptr(sinSigned), cuda.ptr(positions), cuda.ptr(y), rows, d, hd);
    }
    return y;
  }) as KernelFunc,
};
