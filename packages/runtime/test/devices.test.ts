import { describe, expect, it } from 'vitest';
import {
  DeviceSelectionError,
  parseDawnAdapterList,
  parseDeviceList,
  parseNvidiaSmi,
  resolveDevices,
  runEmbedding,
  startPool,
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
const cuda = async () => FOUR_GPUS;

describe('device selection', () => {
  it('--devices 2,3 pins one worker to each of exactly those CUDA devices', async () => {
    const devices = await resolveDevices({ backend: 'tensorflow', devices: [2, 3], discover: { cuda } });
    expect(devices.map((d) => d.label)).toEqual(['cuda:2', 'cuda:3']);
    expect(devices.map((d) => d.env)).toEqual([
      { CUDA_VISIBLE_DEVICES: '2', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' },
      { CUDA_VISIBLE_DEVICES: '3', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' },
    ]);
    const twoEach = await resolveDevices({ backend: 'tensorflow', devices: [1], workers: 2, discover: { cuda } });
    expect(twoEach.map((d) => d.label)).toEqual(['cuda:1', 'cuda:1']);
  });

  it('rejects an unknown or repeated device, naming the ones that exist', async () => {
    await expect(resolveDevices({ backend: 'tensorflow', devices: [5], discover: { cuda } })).rejects.toThrow(
      /CUDA device 5 does not exist; available: 0 \(NVIDIA H100 80GB HBM3\), 1 .*3 \(/,
    );
    await expect(resolveDevices({ backend: 'tensorflow', devices: [1, 1], discover: { cuda } })).rejects.toThrow(/listed twice/);
    await expect(resolveDevices({ backend: 'tensorflow', discover: { cuda: async () => [] } })).rejects.toThrow(DeviceSelectionError);
    await expect(resolveDevices({ backend: 'cpu', devices: [0] })).rejects.toThrow(/--workers/);
    expect(() => parseDeviceList('0,x')).toThrow(/comma-separated device numbers/);
    expect(parseDeviceList('cuda:0, 2')).toEqual([0, 2]);
  });

  it('respects a CUDA_VISIBLE_DEVICES the parent already has (by index or UUID)', () => {
    expect(filterVisible(FOUR_GPUS, '3,GPU-bbbb').map((d) => d.index)).toEqual([3, 1]);
    expect(filterVisible(FOUR_GPUS, undefined)).toHaveLength(4);
  });

  it('worker processes really run with the selected device only', async () => {
    const pool = await startPool<string>({
      model: hashModel({ dim: 4, deviceInVector: true }),
      backend: 'tensorflow',
      devices: [2, 3],
      discover: { cuda },
    });
    try {
      const results = await collect(runEmbedding({ items: asyncItems(makeSequences(200)), pack: { tokenBudget: 100, window: 16 }, pool }));
      expect(new Set(results.map((r) => r.vector[0]))).toEqual(new Set([2, 3]));
    } finally {
      await pool.close();
    }
  });

  it('selects WebGPU adapters by the name Dawn matches, and refuses identical twins it cannot tell apart', async () => {
    const listing = `Error: no adapter  with name '\u0000' found
Available adapters:
 * backend: 'vulkan', name: 'NVIDIA H100 80GB HBM3'
 * backend: 'vulkan', name: 'llvmpipe (LLVM 15.0.7, 256 bits)'
 * backend: 'vulkan', name: 'AMD Radeon Pro W7900'`;
    const adapters = parseDawnAdapterList(listing);
    expect(adapters.map((a) => a.name)).toEqual(['NVIDIA H100 80GB HBM3', 'llvmpipe (LLVM 15.0.7, 256 bits)', 'AMD Radeon Pro W7900']);
    const devices = await resolveDevices({ backend: 'webgpu', discover: { webgpu: async () => adapters } });
    expect(devices.map((d) => [d.label, d.dawnFlags])).toEqual([
      ['webgpu:0', ['backend=vulkan', 'adapter=NVIDIA H100 80GB HBM3']],
      ['webgpu:2', ['backend=vulkan', 'adapter=AMD Radeon Pro W7900']],
    ]);
  });
});

describe('identical WebGPU GPUs: one worker per GPU by hiding the others', () => {
  const twins = async () => parseDawnAdapterList(`* backend: 'vulkan', name: 'NVIDIA H200'\n * backend: 'vulkan', name: 'NVIDIA H200'`);
  const nodes = async () => [
    { index: 0, busId: '00000000:18:00.0', model: 'NVIDIA H200', path: '/dev/nvidia3' },
    { index: 1, busId: '00000000:2a:00.0', model: 'NVIDIA H200', path: '/dev/nvidia1' },
  ];
  const canIsolate = () => undefined;

  it('gives each worker its GPU (PCI order) with every other GPU node hidden', async () => {
    const devices = await resolveDevices({ backend: 'webgpu', discover: { webgpu: twins, nvidiaNodes: nodes, isolationUnavailable: canIsolate } });
    expect(devices.map((d) => [d.label, d.hideDeviceNodes, d.dawnFlags])).toEqual([
      ['webgpu:0', ['/dev/nvidia1'], ['backend=vulkan', 'adapter=NVIDIA H200']],
      ['webgpu:1', ['/dev/nvidia3'], ['backend=vulkan', 'adapter=NVIDIA H200']],
    ]);
    // --devices 1 really is GPU 1, never "the first adapter named NVIDIA H200"
    const one = await resolveDevices({ backend: 'webgpu', devices: [1], discover: { webgpu: twins, nvidiaNodes: nodes, isolationUnavailable: canIsolate } });
    expect(one.map((d) => [d.label, d.hideDeviceNodes])).toEqual([['webgpu:1', ['/dev/nvidia3']]]);
  });

  it('refuses, saying why, where GPUs cannot be hidden or the driver list does not match', async () => {
    await expect(
      resolveDevices({ backend: 'webgpu', devices: [1], discover: { webgpu: twins, nvidiaNodes: nodes, isolationUnavailable: () => 'cannot create a private mount namespace' } }),
    ).rejects.toThrow(/identical GPUs.*private mount namespace.*--backend tensorflow/);
    await expect(resolveDevices({ backend: 'webgpu', discover: { webgpu: twins, nvidiaNodes: async () => [], isolationUnavailable: canIsolate } })).rejects.toThrow(
      /found 0 there for 2 adapters/,
    );
  });

  it('parses the driver\'s per-GPU information file', () => {
    const info = 'Model: \t\t NVIDIA H200\nIRQ:   \t\t 0\nGPU UUID: \t GPU-dc6e\nBus Location: \t 0000:18:00.0\nDevice Minor: \t 3\n';
    expect(parseNvidiaGpuInformation(info, '0000:18:00.0')).toEqual({ busId: '0000:18:00.0', model: 'NVIDIA H200', minor: 3 });
    expect(() => parseNvidiaGpuInformation('Model: x\n', 'b')).toThrow(/Device Minor/);
  });

  it.skipIf(isolationUnavailable() !== undefined)('worker processes really cannot use the hidden device nodes', async () => {
    const dir = await tempDir();
    const gpu = [join(dir, 'gpu0'), join(dir, 'gpu1')];
    gpu.forEach((path, i) => writeFileSync(path, 'x'.repeat(10 + i)));
    const fakeNodes = async () => gpu.map((path, index) => ({ index, busId: `0000:0${index}:00.0`, model: 'NVIDIA H200', path }));
    const pool = await startPool<string>({
      model: hashModel({ dim: 4, bytesOf: gpu }),
      backend: 'webgpu',
      discover: { webgpu: twins, nvidiaNodes: fakeNodes },
    });
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
