import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { gpuApiAvailable } from '../src/webgpu-setup.js';
import { probeCuda } from '@virnucpro/tfjs-backend-cuda';
import { CudaUnavailableError, backendNames, planCompute, startCompute } from '../src/index.js';
import { autoOrder, backends, tensorflowModules } from '../src/backends.js';
import { resolveBackend, type BackendAttempt } from '../src/resolve-backend.js';

const noGpu = !probeCuda().ok;

describe('resolveBackend: auto, decided once without starting a backend', () => {
  it('every backend has an entry, and auto tries each of them once', () => {
    expect(Object.keys(backends).sort()).toEqual([...backendNames].sort());
    expect([...autoOrder].sort()).toEqual([...backendNames].sort());
  });

  it.runIf(noGpu)('passes an absent CUDA GPU and an unloadable tensorflow with their reasons, and starts nothing', async () => {
    const saved = tensorflowModules.names;
    tensorflowModules.names = ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node', 'virnucpro-no-such-module'];
    const created = () => backendNames.filter((name) => tf.engine().registry[name] !== undefined);
    const before = created();
    try {
      const attempts: BackendAttempt[] = [];
      const chosen = await resolveBackend('auto', (a) => attempts.push(a));
      expect(attempts[0]).toMatchObject({ backend: 'cuda', ok: false });
      expect(attempts[0].reason).toMatch(/CUDA libraries not found|CUDA driver|the CUDA driver sees no GPU/);
      expect(attempts[1]).toMatchObject({ backend: 'tensorflow', ok: false });
      expect(attempts[1].reason).toMatch(/tfjs-node-gpu.*tfjs-node.*virnucpro-no-such-module/);
      if (!gpuApiAvailable()) {
        // No Vulkan here: auto says so instead of letting Dawn print warnings.
        expect(attempts.find((a) => a.backend === 'webgpu')?.reason).toMatch(/no Vulkan loader \(libvulkan\.so\.1\)/);
      }
      expect(attempts.at(-1)).toEqual({ backend: chosen, ok: true });
      expect(['webgpu', 'onednn', 'wasm', 'cpu']).toContain(chosen);
      expect(created()).toEqual(before); // no tfjs backend was created by deciding
      // What auto decided starts (in a worker, startCompute does this).
      expect(await startCompute({ backend: chosen, precision: 'fp32' })).toEqual({ backend: chosen, precision: 'fp32' });
      expect(Array.from(tf.add(tf.tensor1d([1, 2]), 1).dataSync())).toEqual([2, 3]);
    } finally {
      tensorflowModules.names = saved;
    }
  });

  it.runIf(noGpu)('--backend cuda where it cannot run: what was looked for, with its lines', async () => {
    await expect(resolveBackend('cuda')).rejects.toThrow(CudaUnavailableError);
    await expect(resolveBackend('cuda')).rejects.toThrow(/^--backend cuda cannot run here: /);
  });

  it('a named backend is taken as named; one that cannot start says why when it is started', async () => {
    expect(await resolveBackend('tensorflow')).toBe('tensorflow');
    const saved = tensorflowModules.names;
    tensorflowModules.names = ['virnucpro-no-such-module'];
    try {
      await expect(startCompute({ backend: 'tensorflow', precision: 'fp32' })).rejects.toThrow(/Cannot start tfjs backend 'tensorflow'.*virnucpro-no-such-module/);
    } finally {
      tensorflowModules.names = saved;
    }
  });

  it('switches between cpu and wasm', async () => {
    expect(await startCompute({ backend: 'cpu', precision: 'fp32' })).toEqual({ backend: 'cpu', precision: 'fp32' });
    expect(tf.getBackend()).toBe('cpu');
    expect((await startCompute({ backend: 'wasm', precision: 'fp32' })).backend).toBe('wasm');
    expect(tf.getBackend()).toBe('wasm');
  });
});

describe('planCompute: the flags made concrete, once', () => {
  it('cpu backends: precision fp32, worker processes as CPU devices, the small token budget', async () => {
    expect(await planCompute({ backend: 'cpu' })).toEqual({ settings: { backend: 'cpu', precision: 'fp32' }, tokenBudget: 4096, notes: [] });
    const plan = await planCompute({ backend: 'wasm', workers: 2, tokenBudget: 300, threads: 3 });
    expect(plan.settings).toEqual({ backend: 'wasm', precision: 'fp32', threads: 3 });
    expect(plan.devices?.map((d) => d.label)).toEqual(['cpu:0', 'cpu:1']);
    expect(plan.tokenBudget).toBe(300);
  });

  it('onednn is a CPU backend: --workers N processes, the threads setting handed to it', async () => {
    const plan = await planCompute({ backend: 'onednn', workers: 2, threads: 3 });
    expect(plan.settings).toEqual({ backend: 'onednn', precision: 'fp32', threads: 3 });
    expect(plan.devices?.map((d) => d.kind)).toEqual(['cpu', 'cpu']);
    await expect(planCompute({ backend: 'onednn', devices: [0] })).rejects.toThrow(/--devices selects GPUs; backend 'onednn' runs on the CPU/);
  });

  it('refuses GPUs for a CPU backend and a precision the backend has not, as settings errors (exit 2)', async () => {
    await expect(planCompute({ backend: 'cpu', devices: [0] })).rejects.toMatchObject({
      name: 'ComputeSettingError', code: 'BAD_INPUT', message: "--devices selects GPUs; backend 'cpu' runs on the CPU (use --workers N for N worker processes)",
    });
    await expect(planCompute({ backend: 'wasm', precision: 'bf16' })).rejects.toThrow(/--precision bf16 needs --backend cuda; the wasm backend computes in fp32 only/);
  });

  it.runIf(noGpu)('auto where there is no CUDA GPU: a CPU or WebGPU backend, fp32, its note on a refused precision', async () => {
    const plan = await planCompute({ backend: 'auto' });
    expect(['webgpu', 'onednn', 'wasm', 'cpu']).toContain(plan.settings.backend);
    expect(plan.tokenBudget).toBe(4096);
    await expect(planCompute({ backend: 'auto', precision: 'fp16' })).rejects.toThrow(/computes in fp32 only|picked by --backend auto/);
  });
});
