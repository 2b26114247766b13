import type { BackendName } from '@virnucpro/ops';
import { backends } from './backends.js';

/**
 * Whether a model runs on a worker thread of the process on `backend` (`virnucpro embed` puts it there, so that its
 * main thread's reading, packing and writing never hold back the next batch's launch). cuda loads in a worker thread
 * as on the main one (measured: `embed dnabert` on an H200, docs/benchmarks/cuda.md), and so do the CPU backends,
 * which predict runs on a thread already; tfjs-node's native addon and Dawn's are not known to, so the tensorflow and
 * webgpu backends keep the model on the main thread.
 */
export function modelRunsOnThread(backend: string): boolean {
  return backend === 'cuda' || (Object.hasOwn(backends, backend) && backends[backend as BackendName].runsOn === 'cpu');
}
