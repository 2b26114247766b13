// ThreadedMlp spreads rows over worker threads running MlpClassifier's own arithmetic: the probabilities
// must be the same bytes as a single-thread run, for any row count and thread count; a thread that dies stops it, and
// no prediction is left waiting on a dead thread.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMlp, MlpThreadError, ThreadedMlp } from '../src/index.js';

const modelPth = fileURLToPath(new URL('../../../test-data/consensus/mlp-virnucpro/model.pth', import.meta.url));

/** Feature rows of a fixed pseudo-random pattern (xorshift), so a failure reproduces. */
function features(rows: number, dim: number): Float32Array {
  const out = new Float32Array(rows * dim);
  let s = 12345;
  for (let i = 0; i < out.length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = ((s >>> 0) / 2 ** 32 - 0.5) * 4;
  }
  return out;
}

describe('ThreadedMlp', async () => {
  const mlp = await loadMlp(modelPth);
  const pools: ThreadedMlp[] = [];
  afterAll(() => Promise.all(pools.map((p) => p.close())));

  for (const threads of [1, 3, 4]) {
    it(`${threads} thread(s): same bytes as MlpClassifier.predict for 1, 5, 37 and 203 rows`, async () => {
      const pool = ThreadedMlp.start(mlp, { threads, minRowsPerThread: 2 });
      pools.push(pool);
      for (const rows of [1, 5, 37, 203]) {
        const x = features(rows, mlp.inputDim);
        const expected = mlp.predict(x, rows);
        const got = await pool.predict(x, rows);
        expect(Buffer.from(got.buffer).equals(Buffer.from(expected.buffer))).toBe(true);
        // the caller's buffer is not detached by the transfer to the threads
        expect(x.length).toBe(rows * mlp.inputDim);
      }
    });
  }

  it('several predictions in flight at once each get their own rows back', async () => {
    const pool = ThreadedMlp.start(mlp, { threads: 2, minRowsPerThread: 2 });
    pools.push(pool);
    const inputs = [9, 30, 17].map((rows) => features(rows, mlp.inputDim).map((v, i) => v + rows * 1e-3 * (i % 7)));
    const got = await Promise.all(inputs.map((x) => pool.predict(x)));
    inputs.forEach((x, i) => expect(Array.from(got[i])).toEqual(Array.from(mlp.predict(x))));
  });

  it('a process waits for rows in flight (threads are unref\'d only while idle)', () => {
    // The built package (CI builds before testing), in a fresh process whose only pending work is the prediction.
    const dist = new URL('../dist/index.js', import.meta.url).href;
    const script = `
      const { loadMlp, ThreadedMlp } = await import(${JSON.stringify(dist)});
      const mlp = await loadMlp(${JSON.stringify(modelPth)});
      const pool = ThreadedMlp.start(mlp, { threads: 2, minRowsPerThread: 1 });
      const out = await pool.predict(new Float32Array(8 * mlp.inputDim).fill(0.5), 8);
      process.stdout.write('rows ' + out.length / 2);`;
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim()).toBe('rows 8');
  });

  it('refuses input that is not whole rows, like MlpClassifier', async () => {
    const pool = ThreadedMlp.start(mlp, { threads: 2 });
    pools.push(pool);
    await expect(pool.predict(new Float32Array(10), 2)).rejects.toThrow(/expected a multiple of the input size 3328/);
  });
});

describe('ThreadedMlp when a thread dies', async () => {
  const mlp = await loadMlp(modelPth);
  /** The pool's threads (private: reached here only to break one). */
  const threadsOf = (pool: ThreadedMlp) => (pool as unknown as { workers: Worker[] }).workers;
  /** Rejects if `promise` does not settle within `ms`: a prediction that never settles fails the test here. */
  const within = <T>(promise: Promise<T>, ms = 2000) =>
    Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms).unref())]);

  it('a thread that throws: its rows in flight and every later prediction reject at once; close() still works', async () => {
    const pool = ThreadedMlp.start(mlp, { threads: 2, minRowsPerThread: 1 });
    // A message the thread's handler throws on, queued ahead of the prediction's slice.
    threadsOf(pool)[0].postMessage({ id: -1, features: null, rows: 1 });
    const x = features(8, mlp.inputDim);
    await expect(within(pool.predict(x))).rejects.toThrow(MlpThreadError);
    await expect(within(pool.predict(x))).rejects.toThrow(/^MLP worker thread 0 failed: .*; the threaded MLP is stopped$/);
    // even rows too few for the threads: the MLP is stopped as a whole
    await expect(within(pool.predict(features(1, mlp.inputDim)))).rejects.toThrow(MlpThreadError);
    await within(pool.close());
  });

  it('a thread terminated mid-run: the prediction waiting on it rejects, the next one too', async () => {
    const pool = ThreadedMlp.start(mlp, { threads: 2, minRowsPerThread: 1 });
    const running = within(pool.predict(features(400, mlp.inputDim))).catch((error: unknown) => error);
    await threadsOf(pool)[1].terminate();
    const error = await running;
    expect(error).toBeInstanceOf(MlpThreadError);
    expect((error as Error).message).toMatch(/^MLP worker thread 1 exited with code \d+; the threaded MLP is stopped$/);
    await expect(within(pool.predict(features(8, mlp.inputDim)))).rejects.toThrow(MlpThreadError);
    await within(pool.close());
  });

  it('close() rejects the predictions still in flight and every later one', async () => {
    const pool = ThreadedMlp.start(mlp, { threads: 2, minRowsPerThread: 1 });
    const running = within(pool.predict(features(400, mlp.inputDim))).catch((error: unknown) => error);
    await within(pool.close());
    expect(await running).toEqual(new MlpThreadError('the threaded MLP is closed'));
    await expect(within(pool.predict(features(8, mlp.inputDim)))).rejects.toThrow(MlpThreadError);
  });
});
