// What compute reads about the machine's devices (nvidia-smi, the driver's per-GPU files) and the variables that pin
// a worker process to one GPU; runtime's devices.test.ts checks that a worker really starts with them.
import { describe, expect, it } from 'vitest';
import { DeviceSelectionError } from '@virnucpro/runtime';
import { cudaWorkerEnv, filterVisible, parseNvidiaSmi } from '../src/cuda-devices.js';
import { parseNvidiaGpuInformation } from '../src/nvidia-device-nodes.js';

const FOUR_GPUS = parseNvidiaSmi(
  ['0, GPU-aaaa, NVIDIA H100 80GB HBM3', '1, GPU-bbbb, NVIDIA H100 80GB HBM3', '2, GPU-cccc, NVIDIA H100 80GB HBM3', '3, GPU-dddd, NVIDIA H100 80GB HBM3'].join('\n'),
);

describe('CUDA devices', () => {
  it('respects a CUDA_VISIBLE_DEVICES the parent already has (by index or UUID)', () => {
    expect(filterVisible(FOUR_GPUS, '3,GPU-bbbb').map((d) => d.index)).toEqual([3, 1]);
    expect(filterVisible(FOUR_GPUS, undefined)).toHaveLength(4);
  });

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
});

describe('NVIDIA device nodes (to hide identical WebGPU GPUs from each other)', () => {
  it('parses the driver\'s per-GPU information file', () => {
    const info = 'Model: \t\t NVIDIA H200\nIRQ:   \t\t 0\nGPU UUID: \t GPU-dc6e\nBus Location: \t 0000:18:00.0\nDevice Minor: \t 3\n';
    expect(parseNvidiaGpuInformation(info, '0000:18:00.0')).toEqual({ busId: '0000:18:00.0', model: 'NVIDIA H200', minor: 3 });
    expect(() => parseNvidiaGpuInformation('Model: x\n', 'b')).toThrow(/Device Minor/);
  });
});
