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
import { filterVisible } from '../src/cuda-devices.js';
import { asyncItems, collect, hashModel, makeSequences } from './helpers.js';

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
    const twins = parseDawnAdapterList(`* backend: 'vulkan', name: 'NVIDIA H200'\n * backend: 'vulkan', name: 'NVIDIA H200'`);
    await expect(resolveDevices({ backend: 'webgpu', discover: { webgpu: async () => twins } })).rejects.toThrow(/identical GPUs/);
    await expect(resolveDevices({ backend: 'webgpu', devices: [1], discover: { webgpu: async () => twins } })).resolves.toHaveLength(1);
  });
});
