import { describe, expect, it } from 'vitest';
import { dawnFlagsEnvVar, dawnFlagsFromEnv } from '@virnucpro/ops';
import { probeCuda } from '@virnucpro/tfjs-backend-cuda';
import {
  cudaWorkerEnv,
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
    expect(devices.map((d) => [d.label, dawnFlagsFromEnv(d.env)])).toEqual([
      ['webgpu:0', ['backend=vulkan', 'adapter=NVIDIA H100 80GB HBM3']],
      ['webgpu:2', ['backend=vulkan', 'adapter=AMD Radeon Pro W7900']],
    ]);
  });
});

describe('the cuda backend: one worker per GPU, pinned with CUDA_VISIBLE_DEVICES', () => {
  const H100 = 'NVIDIA H100 80GB HBM3';
  const cudaDriver = async () => [0, 1, 2, 3].map((ordinal) => ({ ordinal, name: ordinal === 3 ? 'NVIDIA L4' : H100 }));

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

  it('--devices 0,1 gives one worker per GPU, each seeing that GPU only (no mount namespace)', async () => {
    const devices = await resolveDevices({ backend: 'cuda', devices: [0, 1], discover: { cudaDriver, env: {} } });
    expect(devices.map((d) => [d.label, d.kind, d.id, d.name])).toEqual([
      ['cuda:0', 'cuda', 0, H100],
      ['cuda:1', 'cuda', 1, H100],
    ]);
    expect(devices.map((d) => d.env)).toEqual([
      { CUDA_VISIBLE_DEVICES: '0', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' },
      { CUDA_VISIBLE_DEVICES: '1', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' },
    ]);
    expect(devices.every((d) => d.hideDeviceNodes === undefined && d.env[dawnFlagsEnvVar] === undefined)).toBe(true);
    // Without --devices: every GPU the driver counts; --workers N: N per GPU.
    const all = await resolveDevices({ backend: 'cuda', workers: 2, discover: { cudaDriver, env: { CUDA_VISIBLE_DEVICES: '7,6,5,4' } } });
    expect(all.map((d) => `${d.label}=${d.env.CUDA_VISIBLE_DEVICES}`)).toEqual(['cuda:0=7', 'cuda:0=7', 'cuda:1=6', 'cuda:1=6', 'cuda:2=5', 'cuda:2=5', 'cuda:3=4', 'cuda:3=4']);
  });

  it('rejects a GPU that does not exist, naming those that do', async () => {
    await expect(resolveDevices({ backend: 'cuda', devices: [4], discover: { cudaDriver } })).rejects.toThrow(
      /CUDA device 4 does not exist; available: 0 \(NVIDIA H100 80GB HBM3\), .*3 \(NVIDIA L4\)/,
    );
    await expect(resolveDevices({ backend: 'cuda', devices: [1, 1], discover: { cudaDriver } })).rejects.toThrow(/listed twice/);
    await expect(resolveDevices({ backend: 'cuda', discover: { cudaDriver: async () => [] } })).rejects.toThrow(/no CUDA device found/);
  });

  it.skipIf(probeCuda().ok)('without a GPU or the CUDA libraries, says what the probe looked for', async () => {
    const probe = probeCuda();
    const reason = probe.ok ? '' : probe.reason;
    await expect(resolveDevices({ backend: 'cuda', devices: [0] })).rejects.toThrow(DeviceSelectionError);
    await expect(resolveDevices({ backend: 'cuda' })).rejects.toThrow(`no CUDA device for --backend cuda: ${reason}`);
  });

  it('worker processes really start with their GPU in CUDA_VISIBLE_DEVICES', async () => {
    const pool = await startPool<string>({
      model: hashModel({ dim: 4, deviceInVector: true, describe: true }),
      backend: 'cuda',
      devices: [1, 3],
      discover: { cudaDriver, env: { CUDA_VISIBLE_DEVICES: '0,2,5,7' } },
    });
    try {
      const results = await collect(runEmbedding({ items: asyncItems(makeSequences(200)), pack: { tokenBudget: 100, window: 16 }, pool }));
      expect(new Set(results.map((r) => r.vector[0]))).toEqual(new Set([2, 7]));
      expect(pool.telemetry().map((t) => [t.device, t.info?.visible, t.info?.backend])).toEqual([
        ['cuda:1', '2', 'cuda'],
        ['cuda:3', '7', 'cuda'],
      ]);
    } finally {
      await pool.close();
    }
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
    expect(devices.map((d) => [d.label, d.hideDeviceNodes, dawnFlagsFromEnv(d.env)])).toEqual([
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
    ).rejects.toThrow(/identical GPUs.*private mount namespace.*--backend cuda \(or tensorflow\)/);
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
