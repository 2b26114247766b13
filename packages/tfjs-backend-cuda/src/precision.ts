// Precision modes of the backend. tfjs knows only 'float32'; the backend stores every float32 tensor in the
// storage type of its precision (weights are converted once, when they are written), and its kernels
// accumulate in fp32 (GEMMs, layer norm, softmax, means) whatever the storage. fp8 stores tensors in bf16 and runs
// the linear layers as FP8 (E4M3) GEMMs: weights quantised once per output channel, activations per row by the
// kernel that writes them (see kernels/linear.ts).
import type { Precision } from '@virnucpro/ops';

export type { Precision };
export type StorageType = 'f32' | 'f16' | 'bf16' | 'i32';

/** The precisions this backend computes in (of @virnucpro/ops' Precision), and the one it uses when none is given. */
export const precisions: readonly Precision[] = ['fp32', 'fp16', 'bf16', 'fp8'];
export const defaultPrecision: Precision = 'fp16';

export function isPrecision(value: string): value is Precision {
  return (precisions as readonly string[]).includes(value);
}

export function floatStorage(precision: Precision): StorageType {
  if (precision === 'fp32') return 'f32';
  if (precision === 'fp16') return 'f16';
  if (precision === 'bf16' || precision === 'fp8') return 'bf16'; // fp8: bf16 between the FP8 GEMMs
  throw new Error(`the cuda backend does not compute in ${precision} (it offers ${precisions.join(', ')})`);
}

export function bytesPerElement(storage: StorageType): number {
  return storage === 'f16' || storage === 'bf16' ? 2 : 4;
}

/** The preprocessor define that selects the storage type T in the CUDA sources (see cuda/prelude.ts). */
export function storageDefine(storage: StorageType): string {
  return storage === 'f16' ? '-DVNP_F16' : storage === 'bf16' ? '-DVNP_BF16' : '-DVNP_F32';
}

/** Elements per 16-byte word (VEC in the CUDA sources): the unit of the vectorised kernels. */
export function elementsPerWord(storage: StorageType): number {
  return 16 / bytesPerElement(storage);
}
