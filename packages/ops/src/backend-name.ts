/**
 * The tfjs backends a model can run on. `cuda` = @virnucpro/tfjs-backend-cuda (NVIDIA GPUs: cuBLASLt, NVRTC);
 * `tensorflow` = @tensorflow/tfjs-node(-gpu) (libtensorflow).
 */
export type BackendName = 'cpu' | 'wasm' | 'webgpu' | 'tensorflow' | 'cuda';

export const backendNames: readonly BackendName[] = ['cpu', 'wasm', 'webgpu', 'tensorflow', 'cuda'];

/** Storage precision of float tensors: fp16/bf16 only on `cuda` (default fp16 there); fp32 everywhere else. */
export type Precision = 'fp32' | 'fp16' | 'bf16';

export const precisionNames: readonly Precision[] = ['fp32', 'fp16', 'bf16'];

export function isBackendName(value: string): value is BackendName {
  return (backendNames as readonly string[]).includes(value);
}
