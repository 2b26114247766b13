import type { BackendName } from '@virnucpro/ops';
import { cudaProbe } from './cuda-probe.js';
import type { BackendChoice } from './resolve-backend.js';

/** ESM-2 tokens per batch when the models run on cuda: ESM-2 3B's best budgets measured 16K–32K (docs/benchmarks/cuda.md). */
export const CUDA_TOKEN_BUDGET = 16384;
/** Elsewhere (cpu, wasm, webgpu, tensorflow): small batches keep memory low; larger ones gain little there. */
export const DEFAULT_TOKEN_BUDGET = 4096;

/** The token budget of a batch on `backend` when none was given. */
export function tokenBudgetFor(backend: BackendName): number {
  return backend === 'cuda' ? CUDA_TOKEN_BUDGET : DEFAULT_TOKEN_BUDGET;
}

/**
 * --token-budget when none was given, before the backend is resolved: the cuda size when the models will run on
 * cuda (asked for, or `auto` where the CUDA driver sees a GPU — the one probe planCompute reads too), else the
 * small one. Never throws: a refused backend is reported by planCompute.
 */
export function defaultTokenBudget(backend: BackendChoice, cudaAvailable: () => boolean = () => cudaProbe().ok): number {
  if (backend !== 'auto') return tokenBudgetFor(backend);
  return cudaAvailable() ? CUDA_TOKEN_BUDGET : DEFAULT_TOKEN_BUDGET;
}
