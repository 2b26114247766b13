import { listCudaDriverDevices } from '@virnucpro/runtime';
import type { BackendChoice } from './predict-options.js';

/** ESM-2 tokens per batch when the models run on cuda: ESM-2 3B's best budgets measured 16K–32K (docs/benchmarks/cuda.md). */
export const CUDA_TOKEN_BUDGET = 16384;
/** Elsewhere (cpu, wasm, webgpu, tensorflow): small batches keep memory low; larger ones gain little there. */
export const DEFAULT_TOKEN_BUDGET = 4096;

/**
 * --token-budget when none was given: the cuda size when the models will run on cuda (asked for, or `auto`
 * on a machine whose CUDA driver sees a GPU — the driver is asked, no GPU backend is started), else the small one.
 */
export async function defaultTokenBudget(backend: BackendChoice, cudaDevices: () => Promise<unknown[]> = listCudaDriverDevices): Promise<number> {
  if (backend === 'cuda') return CUDA_TOKEN_BUDGET;
  if (backend !== 'auto') return DEFAULT_TOKEN_BUDGET;
  const devices = await cudaDevices().catch(() => []);
  return devices.length > 0 ? CUDA_TOKEN_BUDGET : DEFAULT_TOKEN_BUDGET;
}
