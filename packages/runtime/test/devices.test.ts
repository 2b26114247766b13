// Devices as the pool uses them: the variables that place a worker process (CUDA_VISIBLE_DEVICES, hidden device
// nodes) are applied to it. Which devices a backend gets, and the variables that pin each, are @virnucpro/compute's
// (its devices.test.ts and device-discovery.test.ts).
import { describe, expect, it } from 'vitest';
import { cpuWorkerDevices, DeviceSelectionError, runEmbedding, startPool, type DeviceInfo } from '../src/index.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isolationUnavailable } from '../src/device-isolation.js';
import { asyncItems, collect, hashModel, makeSequences, tempDir } from './helpers.js';

/** The environment compute's cudaWorkerEnv gives the worker of one GPU. */
const pinnedTo = (gpu: string) => ({ CUDA_VISIBLE_DEVICES: gpu, CUDA_DEVICE_ORDER: 'PCI_BUS_ID' });

describe('devices of worker processes', () => {
  it('counts CPU workers', () => {
    expect(cpuWorkerDevices(2)).toEqual([
      { label: 'cpu:0', kind: 'cpu', id: 0, env: {} },
      { label: 'cpu:1', kind: 'cpu', id: 1, env: {} },
    ]);
    expect(() => cpuWorkerDevices(0)).toThrow(DeviceSelectionError);
  });


  it('worker processes really run with the selected device only', async () => {
    const devices: DeviceInfo[] = [2, 3].map((id) => ({ label: `cuda:${id}`, kind: 'cuda', id, env: { CUDA_VISIBLE_DEVICES: String(id) } }));
    const pool = await startPool<string>({ model: hashModel({ dim: 4, deviceInVector: true }), devices });
    try {
      const results = await collect(runEmbedding({ items: asyncItems(makeSequences(200)), pack: { tokenBudget: 100, window: 16 }, pool }));
      expect(new Set(results.map((r) => r.vector[0]))).toEqual(new Set([2, 3]));
    } finally {
      await pool.close();
    }
  });
});

describe('the cuda backend: one worker per GPU, pinned with CUDA_VISIBLE_DEVICES', () => {
  it('worker processes really start with their GPU in CUDA_VISIBLE_DEVICES', async () => {
    // --devices 1,3 of a parent started with CUDA_VISIBLE_DEVICES=0,2,5,7: the workers must see GPUs 2 and 7.
    const gpuOf = ['0', '2', '5', '7'];
    const devices: DeviceInfo[] = [1, 3].map((id) => ({ label: `cuda:${id}`, kind: 'cuda', id, env: pinnedTo(gpuOf[id]) }));
    const pool = await startPool<string>({ model: hashModel({ dim: 4, deviceInVector: true, describe: true }), devices, compute: { backend: 'cuda' } });
    try {
      const results = await collect(runEmbedding({ items: asyncItems(makeSequences(200)), pack: { tokenBudget: 100, window: 16 }, pool }));
      expect(new Set(results.map((r) => r.vector[0]))).toEqual(new Set([2, 7]));
      expect(pool.telemetry().map((t) => [t.device, t.info?.visible, (t.info?.compute as { backend?: string } | undefined)?.backend])).toEqual([
        ['cuda:1', '2', 'cuda'],
        ['cuda:3', '7', 'cuda'],
      ]);
    } finally {
      await pool.close();
    }
  });
});

describe('identical WebGPU GPUs: one worker per GPU by hiding the others', () => {
  it.skipIf(isolationUnavailable() !== undefined)('worker processes really cannot use the hidden device nodes', async () => {
    const dir = await tempDir();
    const gpu = [join(dir, 'gpu0'), join(dir, 'gpu1')];
    gpu.forEach((path, i) => writeFileSync(path, 'x'.repeat(10 + i)));
    // Each worker's GPU with the other one's node hidden (as @virnucpro/compute lists identical WebGPU GPUs).
    const devices: DeviceInfo[] = gpu.map((_, id) => ({ label: `webgpu:${id}`, kind: 'webgpu', id, env: {}, hideDeviceNodes: gpu.filter((_, other) => other !== id) }));
    const pool = await startPool<string>({ model: hashModel({ dim: 4, bytesOf: gpu }), devices });
    try {
      const results = await collect(runEmbedding({ items: asyncItems(makeSequences(120)), pack: { tokenBudget: 100, window: 16 }, pool }));
      // each worker reads its own "device" (10 or 11 bytes) and nothing from the other one (bound to /dev/null)
      expect(new Set(results.map((r) => `${r.vector[0]},${r.vector[1]}`))).toEqual(new Set(['10,0', '0,11']));
    } finally {
      await pool.close();
    }
    expect(readFileSync(gpu[1], 'utf8')).toHaveLength(11); // the parent's view is untouched
  });
});
