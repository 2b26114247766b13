// Devices as the pool uses them: the variables that place a worker process (CUDA_VISIBLE_DEVICES, hidden device
// nodes) and the helpers that build them. Which devices a backend gets is @virnucpro/compute's (its devices.test.ts).
import { describe, expect, it } from 'vitest';
import {
  cpuWorkerDevices,
  cudaDeviceEnv,
  cudaWorkerEnv,
  DeviceSelectionError,
  parseDeviceList,
  parseNvidiaSmi,
  runEmbedding,
  startPool,
  type DeviceInfo,
} from '../src/index.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filterVisible } from '../src/cuda-devices.js';
import { isolationUnavailable } from '../src/device-isolation.js';
import { parseNvidiaGpuInformation } from '../src/nvidia-device-nodes.js';
import { asyncItems, collect, hashModel, makeSequences, tempDir } from './helpers.js';

const FOUR_GPUS = parseNvidiaSmi(
  ['0, GPU-aaaa, NVIDIA H100 80GB HBM3', '1, GPU-bbbb, NVIDIA H100 80GB HBM3', '2, GPU-cccc, NVIDIA H100 80GB HBM3', '3, GPU-dddd, NVIDIA H100 80GB HBM3'].join('\n'),
);

describe('devices of worker processes', () => {
  it('parses --devices, counts CPU workers', () => {
    expect(() => parseDeviceList('0,x')).toThrow(/comma-separated device numbers/);
    expect(parseDeviceList('cuda:0, 2')).toEqual([0, 2]);
    expect(cpuWorkerDevices(2)).toEqual([
      { label: 'cpu:0', kind: 'cpu', id: 0, env: {} },
      { label: 'cpu:1', kind: 'cpu', id: 1, env: {} },
    ]);
    expect(() => cpuWorkerDevices(0)).toThrow(DeviceSelectionError);
  });

  it('respects a CUDA_VISIBLE_DEVICES the parent already has (by index or UUID)', () => {
    expect(filterVisible(FOUR_GPUS, '3,GPU-bbbb').map((d) => d.index)).toEqual([3, 1]);
    expect(filterVisible(FOUR_GPUS, undefined)).toHaveLength(4);
  });


  it('worker processes really run with the selected device only', async () => {
    const devices: DeviceInfo[] = [2, 3].map((id) => ({ label: `cuda:${id}`, kind: 'cuda', id, env: cudaDeviceEnv(String(id)) }));
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
  it('builds the worker environment: that GPU alone, in PCI order, through a parent CUDA_VISIBLE_DEVICES', () => {
    expect(cudaWorkerEnv(0, {})).toEqual({ CUDA_VISIBLE_DEVICES: '0', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' });
    expect(cudaWorkerEnv(3, {})).toEqual({ CUDA_VISIBLE_DEVICES: '3', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' });
    // The parent sees GPUs 4 and 6 as its ordinals 0 and 1: the worker of ordinal 1 must get GPU 6.
    expect(cudaWorkerEnv(1, { CUDA_VISIBLE_DEVICES: '4, 6' })).toEqual({ CUDA_VISIBLE_DEVICES: '6', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' });
    expect(cudaWorkerEnv(0, { CUDA_VISIBLE_DEVICES: 'GPU-bbbb,GPU-aaaa' }).CUDA_VISIBLE_DEVICES).toBe('GPU-bbbb');
    // An order the user chose is kept, so parent and worker number GPUs alike.
    expect(cudaWorkerEnv(0, { CUDA_DEVICE_ORDER: 'FASTEST_FIRST' }).CUDA_DEVICE_ORDER).toBe('FASTEST_FIRST');
    expect(() => cudaWorkerEnv(2, { CUDA_VISIBLE_DEVICES: '4,6' })).toThrow(DeviceSelectionError);
  });


  it('worker processes really start with their GPU in CUDA_VISIBLE_DEVICES', async () => {
    // --devices 1,3 of a parent started with CUDA_VISIBLE_DEVICES=0,2,5,7: the workers must see GPUs 2 and 7.
    const parent = { CUDA_VISIBLE_DEVICES: '0,2,5,7' };
    const devices: DeviceInfo[] = [1, 3].map((id) => ({ label: `cuda:${id}`, kind: 'cuda', id, env: cudaWorkerEnv(id, parent) }));
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
  it('parses the driver\'s per-GPU information file', () => {
    const info = 'Model: \t\t NVIDIA H200\nIRQ:   \t\t 0\nGPU UUID: \t GPU-dc6e\nBus Location: \t 0000:18:00.0\nDevice Minor: \t 3\n';
    expect(parseNvidiaGpuInformation(info, '0000:18:00.0')).toEqual({ busId: '0000:18:00.0', model: 'NVIDIA H200', minor: 3 });
    expect(() => parseNvidiaGpuInformation('Model: x\n', 'b')).toThrow(/Device Minor/);
  });

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
