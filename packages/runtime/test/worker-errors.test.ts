// An error thrown in a worker reaches the pool's caller with its kind (class name, code, own data fields, cause)
// as a WorkerError, so that a caller maps it to its own classes by name, never by the words of its message.
import { describe, expect, it } from 'vitest';
import { PoisonItemError, WorkerError, WorkerPoolError, cpuWorkerDevices, runEmbedding, startPool, workerErrorIn } from '../src/index.js';
import { serializeError } from '../worker/serialize-error.mjs';
import { asyncItems, collect, hashModel, makeSequences } from './helpers.js';

/** What startPool rejects with. */
async function startFailure(options: Parameters<typeof startPool>[0]): Promise<unknown> {
  return startPool(options).then(
    async (pool) => {
      await pool.close();
      throw new Error('the pool started');
    },
    (error: unknown) => error,
  );
}

function expectInjectedKind(error: unknown, name: string): WorkerError {
  expect(error).toBeInstanceOf(WorkerPoolError);
  const remote = workerErrorIn(error);
  expect(remote).toBeInstanceOf(WorkerError);
  expect(remote).toMatchObject({
    remoteName: name,
    message: 'the weights are gone (injected)',
    code: 'E_INJECTED',
    data: { path: '/models/injected', attempt: { count: 1, notes: ['injected'] } },
  });
  expect(Object.keys(remote!.data)).not.toContain('retry'); // a function is not data
  expect(remote!.cause).toBeInstanceOf(WorkerError);
  expect((remote!.cause as WorkerError).message).toBe('ENOENT (injected)');
  // the stack is the worker's: where the factory threw
  expect(remote!.stack).toMatch(/hash-model\.mjs/);
  return remote!;
}

describe('errors from a worker keep their kind', () => {
  it("a factory's own error class, from a worker process", async () => {
    const error = await startFailure({ model: hashModel({ failInitAs: 'ModelLoadError' }), devices: cpuWorkerDevices(1) });
    expectInjectedKind(error, 'ModelLoadError');
    expect((error as Error).message).toBe('worker 0 (cpu:0) failed to start: the weights are gone (injected)');
  });

  it("a factory's own error class, from the in-process thread", async () => {
    const error = await startFailure({ model: hashModel({ failInitAs: 'FeatureMismatchError' }), thread: true });
    expectInjectedKind(error, 'FeatureMismatchError');
    expect((error as Error).message).toBe('the weights are gone (injected)');
  });

  it("an embed() error's kind is the cause of the PoisonItemError it ends in", async () => {
    const items = makeSequences(12);
    const pool = await startPool<string>({ model: hashModel({ poison: items[5], poisonMode: 'throw', poisonErrorName: 'SequenceTooLargeError' }), thread: true });
    try {
      const failure = await collect(runEmbedding({ items: asyncItems(items), pack: { tokenBudget: 200, window: 12 }, pool })).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(PoisonItemError);
      expect(workerErrorIn(failure)).toMatchObject({ remoteName: 'SequenceTooLargeError', code: 'E_INJECTED' });
    } finally {
      await pool.close();
    }
  });

  it('an error without a kind is an Error; what is not an Error is its text', async () => {
    const error = await startFailure({ model: hashModel({ failInit: true }), devices: cpuWorkerDevices(1) });
    expect(workerErrorIn(error)).toMatchObject({ remoteName: 'Error', message: 'weights file is unreadable (injected)', code: undefined, data: {} });
    expect(serializeError('a string')).toEqual({ name: 'Error', message: 'a string' });
    expect(serializeError(Object.assign(new TypeError('bad'), { code: 42 }))).toMatchObject({ name: 'TypeError', code: 42 });
  });

  it('serialises a cycle of causes and a self-referencing field without looping', () => {
    const error = new Error('loop') as Error & { self?: unknown };
    error.cause = error;
    error.self = { back: error };
    const serialized = serializeError(error);
    expect(serialized.data).toBeUndefined(); // a field holding the Error is not plain data
    let depth = 0;
    for (let at = serialized.cause; at; at = at.cause) depth++;
    expect(depth).toBe(4);
    expect(new WorkerError(serialized).cause).toBeInstanceOf(WorkerError);
  });
});
