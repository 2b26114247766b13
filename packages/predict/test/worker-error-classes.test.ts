// A feature worker's ModelLoadError is a ModelLoadError on this side (the CLI exits 2 on it) because of its kind,
// whatever its message says; a message that merely reads like one is not.
import { fileURLToPath } from 'node:url';
import { WorkerPoolError, cpuWorkerDevices, startPool, type PoolOptions } from '@virnucpro/runtime';
import { describe, expect, it } from 'vitest';
import { ModelLoadError } from '../src/model-load-error.js';
import { predictErrorOf } from '../src/worker-error-classes.js';

const plugin = fileURLToPath(new URL('./fixtures/failing-plugin.mjs', import.meta.url));

/** What starting a pool whose worker's factory throws `kind` with `message` fails with, as startFeatures maps it. */
async function startFailure(kind: string, message: string, where: Pick<PoolOptions, 'thread' | 'devices'>): Promise<unknown> {
  const pool = startPool({ model: { module: plugin, export: 'failingFactory', options: { kind, message } }, ...where });
  return pool.then(
    () => new Error('the pool started'),
    (error: unknown) => predictErrorOf(error),
  );
}

describe("a worker's error by its kind", () => {
  it.each([
    ['a thread', { thread: true }],
    ['a process', { devices: cpuWorkerDevices(1) }],
  ])('a ModelLoadError in %s, reworded, is a ModelLoadError with its message', async (_where, where) => {
    const error = await startFailure('ModelLoadError', 'the ESM-2 weights vanished overnight', where);
    expect(error).toBeInstanceOf(ModelLoadError);
    expect((error as Error).message).toBe('the ESM-2 weights vanished overnight');
    expect((error as Error).cause).toBeInstanceOf(WorkerPoolError);
  });

  it('an error of another kind stays what the pool threw, even worded like a ModelLoadError', async () => {
    const error = await startFailure('Error', 'cannot load the ESM-2 model /m/esm: truncated', { thread: true });
    expect(error).not.toBeInstanceOf(ModelLoadError);
    expect(error).toBeInstanceOf(WorkerPoolError);
    const local = new Error('x');
    expect(predictErrorOf(local)).toBe(local);
  });
});
