// Which worker processes --devices / --workers give for each backend (resolveDevices), with the hardware faked.
import { describe, expect, it } from 'vitest';
import { DeviceSelectionError } from '@virnucpro/runtime';
import { parseNvidiaSmi } from '../src/cuda-devices.js';
import { parseDawnAdapterList } from '../src/webgpu-adapters.js';
import { probeCuda } from '@virnucpro/tfjs-backend-cuda';
import { besideCudaProbe, resolveDevices } from '../src/devices.js';
import { dawnFlagsEnvVar, dawnFlagsFromEnv } from '../src/webgpu-setup.js';

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
    await expect(resolveDevices({ backend: 'onednn', devices: [0] })).rejects.toThrow(/--workers/);
    expect((await resolveDevices({ backend: 'wasm', workers: 3 })).map((d) => d.label)).toEqual(['cpu:0', 'cpu:1', 'cpu:2']);
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
});

describe('--backend cuda --devices: the workers planned beside the driver\'s answer', () => {
  const libraries = { cuda: 'libcuda.so.1', cublasLt: 'libcublasLt.so', nvrtc: 'libnvrtc.so' } as never;
  const twoGpus = { ok: true as const, libraries, devices: [0, 1].map((ordinal) => ({ ordinal, name: `NVIDIA H200 #${ordinal}` })) as never };
  const later = <T>(value: T) => () => new Promise<T>((resolve) => setTimeout(resolve, 20, value));

  it('gives every slot at once, each GPU pinned by its number; confirmed once the driver has them', async () => {
    let answered = false;
    const ask = () => later(twoGpus)().then((p) => ((answered = true), p));
    const { devices, confirmed } = await besideCudaProbe([1, 0], 2, {}, ask);
    expect(answered).toBe(false); // planned before the answer
    expect(devices.map((d) => d.label)).toEqual(['cuda:1', 'cuda:1', 'cuda:0', 'cuda:0']);
    expect(devices[0].env).toEqual({ CUDA_VISIBLE_DEVICES: '1', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' });
    await expect(confirmed).resolves.toBeUndefined();
  });

  it('a GPU the driver does not have: confirmed rejects with resolveDevices\' message', async () => {
    const { confirmed } = await besideCudaProbe([3], 1, {}, later(twoGpus));
    await expect(confirmed).rejects.toThrow(DeviceSelectionError);
    await expect(confirmed).rejects.toThrow(/^CUDA device 3 does not exist; available: 0 \(NVIDIA H200 #0\), 1 \(NVIDIA H200 #1\)$/);
  });

  it('an answer at hand (libraries missing, or asked before) refuses before any slot is planned', async () => {
    const missing = { ok: false as const, reason: 'CUDA libraries not found: libcuda.so.1 (looked in /x)' };
    await expect(besideCudaProbe([0], 1, {}, async () => missing)).rejects.toThrow(`no CUDA device for --backend cuda: ${missing.reason}`);
    await expect(besideCudaProbe([2], 1, {}, async () => twoGpus)).rejects.toThrow(/CUDA device 2 does not exist/);
  });

  it('refuses a GPU listed twice, a bad worker count or a number outside CUDA_VISIBLE_DEVICES without asking the driver', async () => {
    const ask = () => Promise.reject(new Error('the driver was asked'));
    await expect(besideCudaProbe([1, 1], 1, {}, ask)).rejects.toThrow(/CUDA device 1 is listed twice in --devices/);
    await expect(besideCudaProbe([0], 0, {}, ask)).rejects.toThrow(/workers must be a positive integer/);
    await expect(besideCudaProbe([2], 1, { CUDA_VISIBLE_DEVICES: '4,6' }, later(twoGpus))).rejects.toThrow(/CUDA device 2 is not in CUDA_VISIBLE_DEVICES=4,6/);
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
});
