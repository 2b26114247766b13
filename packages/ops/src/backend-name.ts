/** The tfjs backends a model can run on. `tensorflow` = @tensorflow/tfjs-node(-gpu) (libtensorflow). */
export type BackendName = 'cpu' | 'wasm' | 'webgpu' | 'tensorflow';

export const backendNames: readonly BackendName[] = ['cpu', 'wasm', 'webgpu', 'tensorflow'];

export function isBackendName(value: string): value is BackendName {
  return (backendNames as readonly string[]).includes(value);
}
