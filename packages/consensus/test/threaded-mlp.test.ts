// ThreadedMlp spreads rows over worker threads running MlpClassifier's own arithmetic: the probabilities
// must be the same bytes as a single-thread run, for any row count and thread count.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMlp, ThreadedMlp } from '../src/index.js';

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
