import { describe, expect, it } from 'vitest';
import { runBesideCount } from '../src/pipeline/run-beside-count.js';

/** A promise and its settlers. */
function later<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('runBesideCount', () => {
  it('both end: the run’s result and the counts, whichever ends first', async () => {
    const run = later<number>();
    const count = later<string>();
    const both = runBesideCount(run.promise, count.promise, async () => expect.fail('nothing to stop'));
    run.resolve(45);
    count.resolve('counted');
    expect(await both).toEqual([45, 'counted']);
  });

  it('the count fails while the run goes on: the workers are stopped and the count’s error comes at once', async () => {
    const run = later<number>(); // never settles: its workers are gone
    const count = later<string>();
    let stopped = 0;
    const both = runBesideCount(run.promise, count.promise, async () => void stopped++);
    count.reject(new Error("record 'prot1' is not DNA"));
    await expect(both).rejects.toThrow("record 'prot1' is not DNA");
    expect(stopped).toBe(1);
  });

  it('the count fails after the run ended: nothing to stop, the count’s error all the same', async () => {
    const run = later<number>();
    const count = later<string>();
    let stopped = 0;
    const both = runBesideCount(run.promise, count.promise, async () => void stopped++);
    run.resolve(45);
    await new Promise((r) => setTimeout(r, 0));
    count.reject(new Error('duplicate id'));
    await expect(both).rejects.toThrow('duplicate id');
    expect(stopped).toBe(0);
  });

  it('the run fails first: its own error (the caller then waits for the count, whose error wins)', async () => {
    const run = later<number>();
    const count = later<string>();
    const both = runBesideCount(run.promise, count.promise, async () => undefined);
    run.reject(new Error('worker died'));
    await expect(both).rejects.toThrow('worker died');
  });
});
