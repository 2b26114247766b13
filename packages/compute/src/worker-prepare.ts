// What a worker may begin before it loads its model's code (@virnucpro/runtime's WorkerPluginSpec.prepare): on cuda
// the driver's start, which would otherwise block the worker's thread once the backend starts. Kept small: importing
// it must not load the backends.
import { startCudaDriverEarly } from '@virnucpro/tfjs-backend-cuda/early-driver';
import type { ComputeSettings } from './backends.js';

/** A worker plugin's `prepare` for a worker that computes with `ctx.compute` (planCompute's settings). */
export function prepareWorkerCompute(ctx: { compute?: Pick<ComputeSettings, 'backend'> }): void {
  // A failure here is the backend's to meet again when it starts, and to report.
  if (ctx.compute?.backend === 'cuda') startCudaDriverEarly().catch(() => undefined);
}
