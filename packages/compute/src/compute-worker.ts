import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Embedder } from '@virnucpro/ops';
import type { WorkerContext, WorkerPluginSpec } from '@virnucpro/runtime';
import type { ComputeSettings } from './backends.js';
import { startCompute } from './start-compute.js';

/**
 * A @virnucpro/runtime worker plugin that starts the pool's `compute` (planCompute's settings) in the worker,
 * then loads `model` (a plugin of a model package, e.g. `@virnucpro/esm2`'s embedderFactory) onto it. Its
 * factory gets the same ctx, `compute.precision` being what the backend started with.
 */
export function onStartedCompute(model: WorkerPluginSpec): WorkerPluginSpec {
  return { module: '@virnucpro/compute', export: 'computeWorkerFactory', options: model };
}

/** The factory behind onStartedCompute (the worker imports it by the spec's export name). */
export async function computeWorkerFactory(options: unknown, ctx: WorkerContext<ComputeSettings>): Promise<Embedder<unknown>> {
  if (!ctx.compute) throw new Error('a compute worker needs the pool\'s `compute` (planCompute(...).settings)');
  const started = await startCompute(ctx.compute);
  const model = options as WorkerPluginSpec;
  const plugin = (await import(isAbsolute(model.module) ? pathToFileURL(model.module).href : model.module)) as Record<string, unknown>;
  const factory = plugin[model.export];
  if (typeof factory !== 'function') throw new Error(`model plugin '${model.module}' has no exported function '${model.export}'`);
  return (factory as (o: unknown, c: WorkerContext<ComputeSettings>) => Promise<Embedder<unknown>>)(model.options, {
    ...ctx,
    compute: { ...ctx.compute, precision: started.precision },
  });
}
