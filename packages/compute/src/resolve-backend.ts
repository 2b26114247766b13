import type { BackendName } from '@virnucpro/ops';
import { autoOrder, backends } from './backends.js';
import { cudaProbe } from './cuda-probe.js';

/** `--backend`: a backend by name, or `auto`, which exists only here and becomes a name in resolveBackend. */
export type BackendChoice = BackendName | 'auto';

/** `--backend cuda` where it cannot run: no driver, GPU or CUDA libraries (the message says what was looked for, where). */
export class CudaUnavailableError extends Error {
  override readonly name = 'CudaUnavailableError';
}

export interface BackendAttempt {
  backend: BackendName;
  ok: boolean;
  /** Why this backend was not used (only when ok is false). */
  reason?: string;
}

/**
 * The one place `auto` is decided, in the parent and without starting any backend: the first of autoOrder
 * that can run here (cuda: the driver sees a GPU and the libraries are there; tensorflow: tfjs-node loads;
 * webgpu: a Vulkan loader and a WebGPU adapter; onednn: libdnnl loads; wasm: its binaries; cpu always). A named backend is
 * returned as it is, except cuda, which is checked first so that its refusal keeps its lines (what was
 * looked for, and where). `onAttempt` hears why auto skipped each backend it passed.
 */
export async function resolveBackend(requested: BackendChoice, onAttempt?: (attempt: BackendAttempt) => void): Promise<BackendName> {
  if (requested === 'cuda') {
    const probe = cudaProbe();
    if (!probe.ok) throw new CudaUnavailableError(`--backend cuda cannot run here: ${probe.reason}`);
    return 'cuda';
  }
  if (requested !== 'auto') return requested;
  const reasons: string[] = [];
  for (const backend of autoOrder) {
    const reason = await backends[backend].unavailable();
    onAttempt?.({ backend, ok: reason === undefined, ...(reason === undefined ? {} : { reason }) });
    if (reason === undefined) return backend;
    reasons.push(`${backend}: ${reason}`);
  }
  throw new Error(`Cannot start tfjs backend 'auto' (${reasons.join('; ')})`);
}
