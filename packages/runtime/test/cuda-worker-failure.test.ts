// Several GPUs with the cuda backend, one failing mid-run. The devices are those of a host of four GPUs whose
// parent was started with CUDA_VISIBLE_DEVICES=0,2,5,7 (as @virnucpro/compute lists them) and CPU processes stand
// in for GPU workers: each worker's model reports the CUDA_VISIBLE_DEVICES it was started with, which is all that
// places a cuda worker.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runEmbedding, startPool, type DeviceInfo, type PoolEvent } from '../src/index.js';
import { hashVector } from './fixtures/hash-model.mjs';
import { asyncItems, collect, hashModel, makeSequences } from './helpers.js';

const DIM = 8;
const PACK = { tokenBudget: 160, window: 24 };
// --devices 1,3 under CUDA_VISIBLE_DEVICES=0,2,5,7: the workers must see GPUs 2 and 7.
const devices: DeviceInfo[] = [1, 3].map((id) => ({
  label: `cuda:${id}`, kind: 'cuda', id, name: 'NVIDIA H200', env: { CUDA_VISIBLE_DEVICES: ['0', '2', '5', '7'][id], CUDA_DEVICE_ORDER: 'PCI_BUS_ID' }, // compute's cudaWorkerEnv under CUDA_VISIBLE_DEVICES=0,2,5,7
}));

async function waitFor(condition: () => boolean, ms = 5000) {
  for (const start = Date.now(); !condition(); await sleep(20)) if (Date.now() - start > ms) throw new Error('timed out waiting');
}

describe('--backend cuda --devices 1,3: a worker whose GPU fails mid-run', () => {
  const items = makeSequences(300);
  /** The vector each item must get, whichever GPU computed it (vector[0] carries the GPU). */
  const expectedTail = items.map((item) => Array.from(hashVector(item, DIM)).slice(1));

  it('is restarted on the same GPU (its own CUDA_VISIBLE_DEVICES), its batches re-queued, every item embedded once', async () => {
    const pool = await startPool<string>({
      model: hashModel({ dim: DIM, deviceInVector: true, describe: true, slowMs: { 0: 3, 1: 3 } }),
      devices,
      compute: { backend: 'cuda' },
    });
    const events: PoolEvent[] = [];
    let killed = 0;
    pool.events$.subscribe((event) => {
      events.push(event);
      if (event.type === 'batch' && event.worker === 1 && killed === 0 && events.filter((e) => e.type === 'batch').length >= 6) {
        killed = pool.pids()[1]!;
        process.kill(killed, 'SIGKILL');
      }
    });
    try {
      expect(pool.devices.map((d) => `${d.label}=${d.env.CUDA_VISIBLE_DEVICES}`)).toEqual(['cuda:1=2', 'cuda:3=7']);
      const before = pool.telemetry().map((t) => t.info?.visible);
      expect(before).toEqual(['2', '7']);
      const results = await collect(runEmbedding({ items: asyncItems(items), pack: PACK, pool }));
      expect(killed).toBeGreaterThan(0);
      await waitFor(() => events.some((e) => e.type === 'ready' && e.worker === 1 && e.pid !== killed));
      expect(events.some((e) => e.type === 'worker-exit' && e.worker === 1 && e.device === 'cuda:3' && /SIGKILL/.test(e.reason))).toBe(true);
      // The new process of slot 1 is on GPU 7 again, not on the other worker's GPU or on every GPU.
      const after = pool.telemetry();
      expect(after[1].restarts).toBe(1);
      expect(after[1].info).toMatchObject({ compute: { backend: 'cuda' }, visible: '7' });
      expect(after[1].info?.pid).not.toBe(killed);
      expect(after[0].restarts).toBe(0);
      // Nothing lost or duplicated: each item once, in order, computed on one of the two GPUs.
      expect(results.map((r) => r.index)).toEqual(items.map((_, i) => i));
      expect(results.map((r) => Array.from(r.vector).slice(1))).toEqual(expectedTail);
      expect(new Set(results.map((r) => r.vector[0]))).toEqual(new Set([2, 7]));
      expect(after.reduce((sum, w) => sum + w.items, 0)).toBe(items.length);
    } finally {
      await pool.close();
    }
  });

  it('that keeps failing is retired after maxRestarts; the other GPU finishes the run, nothing lost', async () => {
    // The healthy GPU is slow enough (≈ 1.5 s in all) that the failing one crashes, restarts and crashes again meanwhile.
    const pool = await startPool<string>({
      // GPU 7 fails at every batch it is given; GPU 2 is healthy.
      model: hashModel({ dim: DIM, deviceInVector: true, crashOnVisible: '7', slowMs: { 0: 25 } }),
      devices,
      compute: { backend: 'cuda' },
      maxRestarts: 1,
    });
    const events: PoolEvent[] = [];
    pool.events$.subscribe((event) => events.push(event));
    try {
      const results = await collect(runEmbedding({ items: asyncItems(items), pack: PACK, pool }));
      expect(results.map((r) => r.index)).toEqual(items.map((_, i) => i));
      expect(results.map((r) => Array.from(r.vector).slice(1))).toEqual(expectedTail);
      expect(new Set(results.map((r) => r.vector[0]))).toEqual(new Set([2])); // all on the healthy GPU
      expect(events.filter((e) => e.type === 'worker-exit').every((e) => e.type === 'worker-exit' && e.worker === 1)).toBe(true);
      expect(events.filter((e) => e.type === 'restart')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'retired')).toEqual([{ type: 'retired', worker: 1, device: 'cuda:3', reason: 'exited with code 1', remaining: 1 }]);
      const [healthy, broken] = pool.telemetry();
      expect(broken.state).toBe('retired');
      expect(broken.items).toBe(0);
      expect(healthy.items).toBe(items.length);
    } finally {
      await pool.close();
    }
  });

  it('is not given back a batch it failed while the healthy GPU can take it (no healthy batch split as a poison suspect)', async () => {
    // Batches on the healthy GPU take long (400 ms), so the failing one is back before the healthy one has room.
    // Without care it took again the batch it had just failed and failed it a second time: the batch was split as
    // a poison suspect (measured: 2 splits in this run), and with each further failure there a half is split
    // again, down to a single healthy frame reported as the one that breaks its batch (the run then stops).
    const some = items.slice(0, 40);
    const pool = await startPool<string>({
      model: hashModel({ dim: DIM, deviceInVector: true, crashOnVisible: '7', slowMs: { 0: 400 } }),
      devices,
      compute: { backend: 'cuda' },
      maxRestarts: 5,
    });
    const events: PoolEvent[] = [];
    pool.events$.subscribe((event) => events.push(event));
    try {
      const results = await collect(runEmbedding({ items: asyncItems(some), pack: PACK, pool }));
      expect(results.map((r) => r.index)).toEqual(some.map((_, i) => i));
      expect(results.map((r) => Array.from(r.vector).slice(1))).toEqual(expectedTail.slice(0, 40));
      const failed = events.filter((e) => e.type === 'batch-failed');
      expect(failed.length).toBeGreaterThanOrEqual(3); // the failing GPU really was given batches again
      expect(failed.filter((e) => e.type === 'batch-failed' && e.willSplit)).toEqual([]);
      expect(events.some((e) => e.type === 'poison')).toBe(false);
    } finally {
      await pool.close();
    }
  }, 30_000);
});
