import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { PoisonItemError, WorkerPoolError, cpuWorkerDevices, inProcessDevice, runEmbedding, startPool, type PoolEvent } from '../src/index.js';
import { hashVector } from './fixtures/hash-model.mjs';
import { asyncItems, collect, hashModel, makeSequences, outputBytes, tempDir } from './helpers.js';

const PREPARE_FIXTURE = fileURLToPath(new URL('./fixtures/prepare.mjs', import.meta.url));

const DIM = 8;
const PACK = { tokenBudget: 160, window: 24 };

async function embedAll(items: string[], modelOptions: Record<string, unknown> = {}, poolOptions: Record<string, unknown> = {}) {
  const pool = await startPool<string>({ model: hashModel({ dim: DIM, ...modelOptions }), devices: cpuWorkerDevices(2), ...poolOptions });
  const events: PoolEvent[] = [];
  pool.events$.subscribe((event) => events.push(event));
  try {
    const run = runEmbedding({ items: asyncItems(items), pack: PACK, pool });
    const results = await collect(run);
    return { results, stats: { ...run.stats }, telemetry: pool.telemetry(), events, pool };
  } finally {
    await pool.close();
  }
}

async function waitFor(condition: () => boolean, ms = 5000) {
  for (const start = Date.now(); !condition(); await sleep(20)) if (Date.now() - start > ms) throw new Error('timed out waiting');
}

describe('worker pool + runEmbedding', () => {
  const items = makeSequences(400);
  const expected = items.map((item) => Array.from(hashVector(item, DIM)));

  it('embeds every item once, in input order, with the vectors the model computes', async () => {
    const { results, stats, telemetry } = await embedAll(items);
    expect(results.map((r) => r.index)).toEqual(items.map((_, i) => i));
    expect(results.map((r) => r.item)).toEqual(items);
    expect(results.map((r) => Array.from(r.vector))).toEqual(expected);
    expect(stats).toMatchObject({ read: 400, embedded: 400, delivered: 400, resumedSequences: 0 });
    expect(telemetry.reduce((sum, w) => sum + w.items, 0)).toBe(400);
    expect(telemetry.every((w) => w.batches > 0)).toBe(true);
    expect(telemetry.reduce((sum, w) => sum + w.tokens, 0)).toBe(items.reduce((sum, s) => sum + s.length, 0));
  });

  it('never reads more than window + K·workers·batch items ahead of completion', async () => {
    const counter = { read: 0 };
    const pool = await startPool<string>({ model: hashModel({ dim: DIM, slowMs: { 0: 5, 1: 5 } }), devices: cpuWorkerDevices(2), inFlightPerWorker: 2 });
    let maxBatchItems = 0;
    pool.events$.subscribe((e) => {
      if (e.type === 'batch') maxBatchItems = Math.max(maxBatchItems, e.items);
    });
    try {
      const run = runEmbedding({ items: asyncItems(items, counter), pack: PACK, pool });
      let maxAhead = 0;
      for await (const result of run) maxAhead = Math.max(maxAhead, counter.read - result.index);
      const bound = PACK.window + 2 * 2 * maxBatchItems;
      expect(run.stats.maxOutstanding).toBeLessThanOrEqual(bound);
      expect(run.stats.maxOutstanding).toBeGreaterThan(0);
      // Measured from outside too: the generator was never pulled far ahead of the consumer.
      expect(maxAhead).toBeLessThanOrEqual(bound + 2 * PACK.window);
    } finally {
      await pool.close();
    }
  });

  it('restarts a worker killed mid-run, requeues its batches, and the output is byte-identical', async () => {
    const undisturbed = await embedAll(items, { slowMs: { 0: 3, 1: 3 } });
    const pool = await startPool<string>({ model: hashModel({ dim: DIM, slowMs: { 0: 3, 1: 3 } }), devices: cpuWorkerDevices(2) });
    const events: PoolEvent[] = [];
    let killed = 0;
    pool.events$.subscribe((event) => {
      events.push(event);
      if (event.type === 'batch' && event.worker === 0 && killed === 0 && events.filter((e) => e.type === 'batch').length >= 6) {
        killed = pool.pids()[0]!;
        process.kill(killed, 'SIGKILL');
      }
    });
    try {
      const results = await collect(runEmbedding({ items: asyncItems(items), pack: PACK, pool }));
      expect(killed).toBeGreaterThan(0);
      await waitFor(() => events.some((e) => e.type === 'ready' && e.pid !== killed && e.worker === 0));
      expect(events.some((e) => e.type === 'worker-exit' && e.worker === 0 && /SIGKILL/.test(e.reason))).toBe(true);
      expect(events.some((e) => e.type === 'restart' && e.worker === 0)).toBe(true);
      expect(pool.pids()[0]).not.toBe(killed);
      expect(pool.telemetry()[0].restarts).toBe(1);
      expect(outputBytes(results).equals(outputBytes(undisturbed.results))).toBe(true);
      expect(pool.telemetry().reduce((sum, w) => sum + w.items, 0)).toBe(items.length);
    } finally {
      await pool.close();
    }
  });

  it('packs the same full batches for a consumer slower than the pool (no partial windows while batches are in flight)', async () => {
    const batchesWith = async (consumerDelayMs: number) => {
      const pool = await startPool<string>({ model: hashModel({ dim: DIM }), devices: cpuWorkerDevices(1) });
      const sizes: number[] = [];
      pool.events$.subscribe((event) => {
        if (event.type === 'batch') sizes.push(event.items);
      });
      try {
        const results = [];
        for await (const result of runEmbedding({ items: asyncItems(items), pack: PACK, pool })) {
          results.push(result);
          if (consumerDelayMs) await sleep(consumerDelayMs);
        }
        expect(results.map((r) => Array.from(r.vector))).toEqual(expected);
        return sizes;
      } finally {
        await pool.close();
      }
    };
    const fast = await batchesWith(0);
    const slow = await batchesWith(2);
    expect(slow.length).toBe(fast.length);
  });

  it('runs as many batches at once in a worker as the model allows (concurrentBatches), with the same results', async () => {
    const slow = { slowMs: { 0: 15, 1: 15 }, counters: true };
    const one = await embedAll(items, slow, { workers: 1 });
    const two = await embedAll(items, { ...slow, concurrentBatches: 2 }, { workers: 1 });
    expect(one.telemetry[0].counters.maxRunning).toBe(1);
    expect(two.telemetry[0].counters.maxRunning).toBe(2); // the pool's two in-flight batches ran side by side
    expect(two.results.map((r) => Array.from(r.vector))).toEqual(expected);
    expect(outputBytes(two.results)).toEqual(outputBytes(one.results));
  });

  it('gives a worker that runs C batches at once K + C − 1 of credit: K − 1 still wait there, as with one at a time', async () => {
    const credit = async (modelOptions: Record<string, unknown>) => {
      const pool = await startPool<string>({ model: hashModel({ dim: DIM, ...modelOptions }), devices: cpuWorkerDevices(1), inFlightPerWorker: 2 });
      try {
        return pool.freeCredit();
      } finally {
        await pool.close();
      }
    };
    expect(await credit({})).toBe(2); // one computing, one waiting
    expect(await credit({ concurrentBatches: 2 })).toBe(3); // two computing, one waiting
    expect(await credit({ concurrentBatches: 3 })).toBe(4);
  });

  it("reports each worker's describe() and sums its counters() over workers and restarts", async () => {
    const dir = await tempDir();
    const pool = await startPool<string>({
      model: hashModel({ dim: DIM, describe: true, counters: true, crashAfterBatches: 4, crashMarker: join(dir, 'crash') }),
      devices: cpuWorkerDevices(2),
      compute: { backend: 'cpu', precision: 'bf16' },
    });
    const events: PoolEvent[] = [];
    pool.events$.subscribe((event) => events.push(event));
    try {
      const results = await collect(runEmbedding({ items: asyncItems(items), pack: PACK, pool }));
      expect(results.map((r) => Array.from(r.vector))).toEqual(expected);
      const telemetry = pool.telemetry();
      expect(events.some((e) => e.type === 'restart')).toBe(true); // one worker crashed once and came back
      // Only batches that finished count: the one lost in the crash was embedded again elsewhere.
      expect(telemetry.reduce((sum, w) => sum + w.counters.items, 0)).toBe(items.length);
      for (const w of telemetry) expect(w.counters.batches).toBe(w.batches);
      for (const w of telemetry) {
        // the worker's factory got the pool's compute settings (info: from the slot's latest process)
        expect(w.info).toEqual({ compute: { backend: 'cpu', precision: 'bf16' }, pid: expect.any(Number), visible: null });
      }
    } finally {
      await pool.close();
    }
  });

  it('restarts a worker whose event loop hangs (heartbeat timeout)', async () => {
    const dir = await tempDir();
    const { results, telemetry, events } = await embedAll(
      items,
      { hangAfterBatches: 3, hangMarker: join(dir, 'hang'), hangMode: 'busy' },
      { heartbeatIntervalMs: 50, heartbeatTimeoutMs: 600 },
    );
    expect(results.map((r) => Array.from(r.vector))).toEqual(expected);
    expect(telemetry.reduce((sum, w) => sum + w.restarts, 0)).toBe(1);
    expect(events.some((e) => e.type === 'worker-exit' && /heartbeat/.test(e.reason))).toBe(true);
  });

  it('restarts a worker stuck on one batch (batch timeout) while its heartbeat continues', async () => {
    const dir = await tempDir();
    const { results, events } = await embedAll(
      items.slice(0, 120),
      { hangAfterBatches: 2, hangMarker: join(dir, 'hang'), hangMode: 'promise' },
      { batchTimeoutMs: 500 },
    );
    expect(results).toHaveLength(120);
    expect(events.some((e) => e.type === 'worker-exit' && /one batch/.test(e.reason))).toBe(true);
  });

  it('lets fast workers take more batches than a slow one (no static split)', async () => {
    const { telemetry, results } = await embedAll(items, { slowMs: { 0: 60 } });
    expect(results).toHaveLength(items.length);
    const [slow, fast] = telemetry;
    expect(slow.batches).toBeGreaterThan(0);
    expect(fast.batches).toBeGreaterThan(3 * slow.batches);
  });

  it.each(['exit', 'throw'])('isolates a poison item (%s) and reports its index instead of dropping it', async (poisonMode) => {
    const poisonIndex = 137;
    await expect(embedAll(items, { poison: items[poisonIndex], poisonMode })).rejects.toSatisfy((error: unknown) => {
      expect(error).toBeInstanceOf(PoisonItemError);
      expect((error as PoisonItemError).index).toBe(poisonIndex);
      expect((error as PoisonItemError).message).toContain(`#${poisonIndex}`);
      return true;
    });
  });

  it('fails clearly when the model cannot load, leaving no worker behind', async () => {
    await expect(startPool({ model: hashModel({ failInit: true }), devices: cpuWorkerDevices(2) })).rejects.toThrow(
      /worker \d \(cpu:\d\) failed to start: weights file is unreadable/,
    );
    await expect(startPool({ model: { module: '/nonexistent/model.mjs', export: 'x', options: {} }, devices: cpuWorkerDevices(1) })).rejects.toThrow(
      WorkerPoolError,
    );
  });

  it("imports and calls the plugin's prepare before its module, with the factory's context; a prepare that fails changes nothing", async () => {
    const prepare = (name: string) => ({ module: PREPARE_FIXTURE, export: name });
    const pool = await startPool<string>({ model: { ...hashModel({ dim: DIM, describe: true }), prepare: prepare('notePrepared') }, devices: cpuWorkerDevices(2), compute: { backend: 'cpu' } });
    try {
      expect(pool.telemetry().map((t) => t.info?.prepared)).toEqual([
        { workerIndex: 0, compute: { backend: 'cpu' }, device: 'cpu:0' },
        { workerIndex: 1, compute: { backend: 'cpu' }, device: 'cpu:1' },
      ]);
    } finally {
      await pool.close();
    }
    for (const failing of ['failToPrepare', 'rejectToPrepare', 'noSuchExport']) {
      const { results } = await embedAll(items.slice(0, 20), {}, { model: { ...hashModel({ dim: DIM }), prepare: prepare(failing) } });
      expect(results.map((r) => Array.from(r.vector))).toEqual(expected.slice(0, 20));
    }
  });

  it('gives up after maxRestarts consecutive crashes instead of looping forever', async () => {
    const pool = await startPool<string>({ model: hashModel({ dim: DIM, crashAfterBatches: 0 }), devices: cpuWorkerDevices(1), maxRestarts: 2 });
    try {
      // Not "item #k fails every time": nothing embedded between the deaths, so no item is to blame.
      await expect(collect(runEmbedding({ items: asyncItems(items.slice(0, 50)), pack: PACK, pool }))).rejects.toThrow(
        /^every worker failed 3 times in a row; last: worker 0 \(cpu:0\) exited with code 1$/,
      );
    } finally {
      await pool.close();
    }
  });
});

describe('worker pool in a thread of this process (thread: true, the in-process mode)', () => {
  const items = makeSequences(200);

  it('embeds through the same protocol on its own in-process device, handing the model its compute settings', async () => {
    const pool = await startPool<string>({ model: hashModel({ dim: DIM, describe: true }), compute: { backend: 'wasm', precision: 'fp32' }, thread: true });
    try {
      const results = await collect(runEmbedding({ items: asyncItems(items), pack: PACK, pool }));
      expect(results.map((r) => Array.from(r.vector))).toEqual(items.map((item) => Array.from(hashVector(item, DIM))));
      expect(pool.devices).toEqual([inProcessDevice]);
      const [worker] = pool.telemetry();
      expect(worker).toMatchObject({ device: 'in-process', pid: process.pid, items: 200 });
      expect(worker.info).toMatchObject({ compute: { backend: 'wasm', precision: 'fp32' }, pid: process.pid });
    } finally {
      await pool.close();
    }
  });

  it('keeps this thread responsive while a batch blocks the model, and close({ graceMs: 0 }) stops it at once', async () => {
    const dir = await tempDir();
    const pool = await startPool<string>({
      model: hashModel({ dim: DIM, hangAfterBatches: 0, hangMarker: join(dir, 'hang'), hangMode: 'busy' }),
      thread: true,
    });
    const batch = pool.submit({ items: [{ index: 0, tokens: 3, value: 'abc' }] });
    batch.catch(() => undefined);
    // The model spins forever; timers here still run.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    await waitFor(() => ticks >= 20);
    clearInterval(timer);
    const closing = performance.now();
    await pool.close({ graceMs: 0 });
    expect(performance.now() - closing).toBeLessThan(2000);
  });

  it("fails with the model's own message when it cannot load (there is no worker to name)", async () => {
    const starting = startPool({ model: hashModel({ failInit: true }), thread: true });
    await expect(starting).rejects.toThrow(WorkerPoolError);
    await expect(starting).rejects.toThrow(/^weights file is unreadable \(injected\)$/);
  });

  it('takes no devices; worker processes need them', async () => {
    await expect(startPool({ model: hashModel(), thread: true, devices: cpuWorkerDevices(2) })).rejects.toThrow(/devices and workers do not apply/);
    await expect(startPool({ model: hashModel() })).rejects.toThrow(/worker processes need devices/);
  });
});
