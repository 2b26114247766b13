// Every backend a model can run on, in one table: where it computes, the precisions it offers, how to tell
// (without starting it) whether it can run here, and how to load it. A new backend is one entry here.
import * as tf from '@tensorflow/tfjs-core';
import type { BackendName, Precision } from '@virnucpro/ops';
import { resolveWasmDir } from './wasm-paths.js';
import { gpuApiAvailable, installNodeWebGpu } from './webgpu-setup.js';
import { listWebGpuAdapters } from './webgpu-adapters.js';
import {
  defaultPrecision as cudaDefaultPrecision, precisions as cudaPrecisions, setCudaBackendOptions,
} from '@virnucpro/tfjs-backend-cuda';
import { probeOnednn, setOnednnBackendOptions } from '@virnucpro/tfjs-backend-onednn';
import { cudaProbe } from './cuda-probe.js';
import { firstLine } from './first-line.js';

/** What a worker needs to start its backend: concrete (no `auto`), structured-cloneable. */
export interface ComputeSettings {
  backend: BackendName;
  precision: Precision;
  /** CPU threads of a CPU backend (GEMMs and row kernels) and of the MLP; undefined: each its own default. */
  threads?: number;
}

export interface BackendEntry {
  /** 'gpu': one worker per device (`--devices`); 'cpu': `--workers N` processes on this machine's cores. */
  runsOn: 'gpu' | 'cpu';
  /** The precisions it computes in, and the one it uses when none is asked for. */
  precisions: readonly Precision[];
  defaultPrecision: Precision;
  /** Why it cannot run here, found without starting it (undefined: it can). `auto` asks this, in autoOrder. */
  unavailable(): Promise<string | undefined>;
  /** Registers it with tfjs and hands it the settings; `tf.setBackend` comes next (startCompute). */
  load(settings: ComputeSettings): Promise<void>;
}

const fp32Only = { precisions: ['fp32'], defaultPrecision: 'fp32' } as const;

/** Modules tried for the `tensorflow` backend, in order (tests replace them). */
export const tensorflowModules = { names: ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node'] };

async function loadTensorflow(): Promise<void> {
  const errors: string[] = [];
  for (const name of tensorflowModules.names) {
    try {
      await import(name);
      if (tf.findBackendFactory('tensorflow')) return;
      errors.push(`${name} loaded but registered no 'tensorflow' backend`);
    } catch (error) {
      errors.push(`${name}: ${firstLine(error)}`);
    }
  }
  throw new Error(errors.join('; '));
}

async function loadWasm(): Promise<void> {
  const imported = await import('@tensorflow/tfjs-backend-wasm');
  // A bundler may hand the CommonJS build over as { default: exports } (esbuild with code splitting).
  type WasmModule = typeof imported;
  const wasm: WasmModule = typeof imported.setWasmPaths === 'function' ? imported : (imported as unknown as { default: WasmModule }).default;
  // Node has no Blob-URL workers for the threaded build; the SIMD build runs single-threaded.
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  wasm.setWasmPaths(resolveWasmDir());
}

/** The reason `fn` throws, or undefined when it does not. */
async function reasonOf(fn: () => unknown): Promise<string | undefined> {
  try {
    await fn();
    return undefined;
  } catch (error) {
    return firstLine(error);
  }
}

export const backends: Record<BackendName, BackendEntry> = {
  cuda: {
    runsOn: 'gpu',
    precisions: cudaPrecisions,
    defaultPrecision: cudaDefaultPrecision,
    // The driver and the libraries, asked once per process (cuda-probe.ts); no CUDA context is made.
    unavailable: async () => {
      const probe = cudaProbe();
      return probe.ok ? undefined : probe.reason.replace(/\n/g, ' ');
    },
    // Importing the package (above) registered the backend; tfjs creates it with these options.
    load: async ({ precision }) => setCudaBackendOptions({ precision }),
  },
  tensorflow: { runsOn: 'gpu', ...fp32Only, unavailable: () => reasonOf(loadTensorflow), load: loadTensorflow },
  webgpu: {
    runsOn: 'gpu',
    ...fp32Only,
    // Probing Dawn without a Vulkan loader only makes it print warnings; the adapters are listed in a child
    // process, so this one never loads Dawn. A user who names webgpu gets Dawn's own answer (load).
    unavailable: async () => {
      if (!gpuApiAvailable()) return 'no Vulkan loader (libvulkan.so.1) found, so no WebGPU adapter';
      const adapters = await listWebGpuAdapters().catch(() => []);
      return adapters.length > 0 ? undefined : 'no WebGPU adapter found';
    },
    load: async () => {
      if (!(await installNodeWebGpu())) throw new Error('no WebGPU adapter found');
      await import('@tensorflow/tfjs-backend-webgpu');
    },
  },
  onednn: {
    runsOn: 'cpu',
    ...fp32Only,
    // libdnnl found and loadable (the package falls back to saying what to install).
    unavailable: async () => {
      const probe = probeOnednn();
      return probe.ok ? undefined : probe.reason.replace(/\n/g, ' ');
    },
    // Importing the package (above) registered the backend; its GEMMs take the CPU threads of the plan.
    load: async ({ threads }) => setOnednnBackendOptions(threads === undefined ? {} : { threads }),
  },
  wasm: { runsOn: 'cpu', ...fp32Only, unavailable: () => reasonOf(() => resolveWasmDir()), load: loadWasm },
  cpu: {
    runsOn: 'cpu',
    ...fp32Only,
    unavailable: async () => undefined,
    load: async () => {
      await import('@tensorflow/tfjs-backend-cpu');
    },
  },
};

/** What `auto` tries, first that can run wins: the GPU backends, then the CPU ones, fastest first. */
export const autoOrder: readonly BackendName[] = ['cuda', 'tensorflow', 'webgpu', 'onednn', 'wasm', 'cpu'];
