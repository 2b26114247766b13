/**
 * The tfjs backends a model can run on: the one list every package and option table uses. `cuda` =
 * @virnucpro/tfjs-backend-cuda (NVIDIA GPUs: cuBLASLt, NVRTC); `onednn` = @virnucpro/tfjs-backend-onednn (CPUs: oneDNN's
 * multi-threaded GEMMs, WebAssembly SIMD between them); `tensorflow` = @tensorflow/tfjs-node(-gpu) (libtensorflow).
 */
export const backendNames = ['cpu', 'wasm', 'onednn', 'webgpu', 'tensorflow', 'cuda'] as const;

export type BackendName = (typeof backendNames)[number];

/**
 * Storage precision of float tensors, every one that has a name here: fp16/bf16/fp8 only on `cuda`, fp32 everywhere.
 * Which of them a backend offers, and its default, is @virnucpro/compute's to say (its backend table).
 */
export const precisionNames = ['fp32', 'fp16', 'bf16', 'fp8'] as const;

export type Precision = (typeof precisionNames)[number];

export function isBackendName(value: string): value is BackendName {
  return (backendNames as readonly string[]).includes(value);
}
