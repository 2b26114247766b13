// Worker processes that die on every batch: the run must end promptly with one WorkerPoolError that says so (not a
// hang, and not a healthy item condemned as poison because it happened to be the one in a dying worker), and a
// checkpoint keeps what an earlier run stored.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCheckpoint } from '@virnucpro/checkpoint';
import { describe, expect, it } from 'vitest';
import { WorkerPoolError, cpuWorkerDevices, runEmbedding, serialEmbedder, startPool, type PoolEvent } from '../src/index.js';
import { hashVector } from './fixtures/hash-model.mjs';
import { asyncItems, collect, hashModel, makeSequences } from './helpers.js';

const DIM = 8;
const PACK = { tokenBudget: 160, window: 24 };
/** Restarts back off 100, 200, 400 ms: the pool gives up within a few seconds; a hang would run into this. */
const BOUND_MS = 10_000;

async function failureOf(run: AsyncIterable<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await collect(run as never).then(
    () => new Error('the run finished'),
    (e: unknown) => e,
  );
  return { error, ms: performance.now() - started };
}

describe('every worker process dies on every batch', () => {
  it.each([
    ['2 processes, process.exit', 'exit', { devices: cpuWorkerDevices(2) }, 'worker [01] \\(cpu:[01]\\) exited with code 1', [1, 0]],
    ['2 processes, SIGKILL', 'sigkill', { devices: cpuWorkerDevices(2) }, 'worker [01] \\(cpu:[01]\\) killed by SIGKILL', [1, 0]],
    ['the in-process thread, process.exit', 'exit', { thread: true }, 'worker 0 \\(in-process\\) exited with code 1', [0]],
  ] as const)('%s: runEmbedding rejects with one WorkerPoolError line, in bounded time', async (_label, dieEveryBatch, where, last, remaining) => {
    // Default restarts: 4 deaths a worker. Before, a batch's lineage reached a single item first and that healthy
    // item was reported as one that "fails every time it is embedded".
    const pool = await startPool<string>({ model: hashModel({ dim: DIM, dieEveryBatch }), ...where });
    const events: PoolEvent[] = [];
    pool.events$.subscribe((e) => events.push(e));
    try {
      const { error, ms } = await failureOf(runEmbedding({ items: asyncItems(makeSequences(200)), pack: PACK, pool }));
      expect(error).toBeInstanceOf(WorkerPoolError);
      expect((error as Error).message).toMatch(new RegExp(`^every worker failed 4 times in a row; last: ${last}$`));
      expect(ms).toBeLessThan(BOUND_MS);
      expect(pool.telemetry().every((w) => w.state === 'retired')).toBe(true);
      // the last one given up says none remain (the CLI leaves that to the run's error line)
      expect(events.flatMap((e) => (e.type === 'retired' ? [e.remaining] : []))).toEqual(remaining);
    } finally {
      await pool.close();
    }
  }, 2 * BOUND_MS);

  it('a resumed run on such workers fails the same way, and the checkpoint keeps what the first run stored', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vnp-runtime-dies-'));
    const items = makeSequences(120);
    const open = (resume: boolean) => openCheckpoint({ dir, model: { name: 'hash' }, inputFingerprint: 'sha256:test', dim: DIM, resume, checkpointEvery: 20 });
    // An earlier run stored the first 60 items (embedded here on this thread: nothing to die).
    const first = await open(false);
    const serial = serialEmbedder<string>(async (batch) => batch.items.map((item) => hashVector(item.value, DIM)));
    await collect(runEmbedding({ items: asyncItems(items.slice(0, 60)), pack: PACK, pool: serial, checkpoint: first }));
    await first.close();
    expect(first.itemsStored).toBe(60);

    const resumed = await open(true);
    expect(resumed.report.restoredItems).toBe(60);
    const pool = await startPool<string>({ model: hashModel({ dim: DIM, dieEveryBatch: 'exit' }), devices: cpuWorkerDevices(1), maxRestarts: 1 });
    try {
      const { error } = await failureOf(runEmbedding({ items: asyncItems(items), pack: PACK, pool, checkpoint: resumed }));
      expect(error).toBeInstanceOf(WorkerPoolError);
    } finally {
      await pool.close();
    }
    await resumed.close();
    const again = await open(true);
    expect(again.report).toMatchObject({ restoredItems: 60, droppedShards: [] });
    expect(Array.from((await again.restored.get(59)).vector)).toEqual(Array.from(hashVector(items[59], DIM)));
    await again.close();
  });
});
