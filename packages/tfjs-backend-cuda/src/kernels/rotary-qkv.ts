import { type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { VnpRotaryQkv, type VnpRotaryQkvAttrs } from '@virnucpro/ops';
import { blocks, type CudaBackend } from '../backend-cuda.js';
import { rotarySource } from '../cuda/rotary.js';
import { elementsPerWord } from '../precision.js';

/** qkv [rows, 3·H·hd] with every q and k head rotated (VnpRotaryQkv); also packed attention's fp32 path. */
export function rotateQkv(cuda: CudaBackend, qkv: TensorInfo, cos: TensorInfo, sinSigned: TensorInfo, positions: TensorInfo, numHeads: number): TensorInfo {
  const [rows, width] = qkv.shape;
  const d = width / 3;
  const hd = d / numHeads;
  const y = cuda.makeOutput([rows, width]);
  if (rows > 0) {
    // 16-byte words when no word straddles two half-heads (and so none straddles two heads or thirds).
    const vec = elementsPerWord(cuda.floatStorage);
    const vectorised = (hd / 2) % vec === 0;
    const threads = vectorised ? (rows * width) / vec : rows * width;
    cuda.launch(rotarySource, vectorised ? 'rotary_qkv_vec' : 'rotary_qkv', [], blocks(threads), [256, 1, 1], 0, 'pppppiii',
      cuda.ptr(qkv), cuda.ptr(cos), cuda.ptr(sinSigned), cuda.ptr(positions), cuda.ptr(y), rows, d, hd);
  }
  return y;
}

export const rotaryQkvConfig: KernelConfig = {
  kernelName: VnpRotaryQkv,
  backendName: 'cuda',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const { qkv, cos, sinSigned, positions } = inputs as { qkv: TensorInfo; cos: TensorInfo; sinSigned: TensorInfo; positions: TensorInfo };
    return rotateQkv(backend as CudaBackend, qkv, cos, sinSigned, positions, (attrs as VnpRotaryQkvAttrs).numHeads);
  }) as KernelFunc,
};
