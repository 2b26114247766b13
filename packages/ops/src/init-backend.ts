import * as tf from '@tensorflow/tfjs-core';
import type { BackendName, Precision } from './backend-name.js';
import { resolveWasmDir } from './wasm-paths.js';
import { gpuApiAvailable, installNodeWebGpu } from './webgpu-setup.js';

export interface BackendAttempt {
  backend: BackendName;
  ok: boolean;
  /** Why this backend was not used (only when ok is false). */
  reason?: string;
}

export interface InitBackendOptions {
  /** Folder with the tfjs wasm binaries; default $VIRNUCPRO_TFJS_WASM_DIR or the installed package. */
  wasmDir?: string;
  /** Modules tried for the `tensorflow` backend, in order (tests override this). */
  tensorflowModules?: string[];
  /** Called for every backend tried, so callers can log why auto selection skipped one. */
  onAttempt?: (attempt: BackendAttempt) => void;
  /** Precision on `cuda` (default fp16); other backends always compute in fp32. */
  precision?: Precision;
  /** Module of the `cuda` backend (tests override this). */
  cudaModule?: string;
  /** Module of the `onednn` backend (tests override this). */
  onednnModule?: string;
  /** Threads of a CPU backend's GEMMs (`onednn`); default every core. */
  threads?: number;
}

/** What @virnucpro/tfjs-backend-onednn exports that starting it needs. */
interface OnednnBackendApi {
  probeOnednn(): { ok: true } | { ok: false; reason: string };
  setOnednnBackendOptions(options: { threads?: number }): void;
}

/**
 * What @virnucpro/tfjs-backend-cuda publishes on import under this global key. It depends on this package
 * (for the kernel names), so this package reaches it by name at run time rather than by a static import;
 * a bundle that imports it up front is found the same way.
 */
interface CudaBackendApi {
  probeCuda(): { ok: true } | { ok: false; reason: string };
  setCudaBackendOptions(options: { precision?: Precision }): void;
}
const cudaApiKey = Symbol.for('@virnucpro/tfjs-backend-cuda');

const defaultTensorflowModules = ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node'];

// Each loader registers its backend with tfjs-core (importing a backend package registers it) and
// returns a reason string when it cannot be used.
async function loadTensorflow(options: InitBackendOptions): Promise<void> {
  const errors: string[] = [];
  for (const name of options.tensorflowModules ?? defaultTensorflowModules) {
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

async function loadWebGpu(_options: InitBackendOptions, auto = false): Promise<void> {
  // Probing Dawn without a Vulkan loader only makes it print warnings: skip it when auto-selecting. A
  // user who asks for webgpu by name still gets Dawn's own answer.
  if (auto && !gpuApiAvailable()) throw new Error('no Vulkan loader (libvulkan.so.1) found, so no WebGPU adapter');
  if (!(await installNodeWebGpu())) throw new Error('no WebGPU adapter found');
  await import('@tensorflow/tfjs-backend-webgpu');
}

async function loadCuda(options: InitBackendOptions): Promise<void> {
  const registry = globalThis as { [cudaApiKey]?: CudaBackendApi };
  if (!registry[cudaApiKey]) await import(options.cudaModule ?? '@virnucpro/tfjs-backend-cuda');
  const api = registry[cudaApiKey];
  if (!api) throw new Error('@virnucpro/tfjs-backend-cuda loaded but did not register the cuda backend');
  const probe = api.probeCuda();
  if (!probe.ok) throw new Error(probe.reason.replace(/\n/g, ' '));
  api.setCudaBackendOptions({ precision: options.precision ?? 'fp16' });
}

async function loadWasm(options: InitBackendOptions): Promise<void> {
  const imported = await import('@tensorflow/tfjs-backend-wasm');
  // A bundler may hand the CommonJS build over as { default: exports } (esbuild with code splitting).
  type WasmModule = typeof imported;
  const wasm: WasmModule = typeof imported.setWasmPaths === 'function' ? imported : (imported as unknown as { default: WasmModule }).default;
  // Node has no Blob-URL workers for the threaded build; the SIMD build runs single-threaded.
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  wasm.setWasmPaths(resolveWasmDir(options.wasmDir));
}

async function loadOnednn(options: InitBackendOptions): Promise<void> {
  // By name, as cuda: that package imports this one for the kernel names.
  const api = (await import(options.onednnModule ?? '@virnucpro/tfjs-backend-onednn')) as OnednnBackendApi;
  const probe = api.probeOnednn();
  if (!probe.ok) throw new Error(probe.reason.replace(/\n/g, ' '));
  api.setOnednnBackendOptions({ ...(options.threads !== undefined ? { threads: options.threads } : {}) });
}

async function loadCpu(): Promise<void> {
  await import('@tensorflow/tfjs-backend-cpu');
}

const loaders: Record<BackendName, (options: InitBackendOptions, auto: boolean) => Promise<void>> = {
  cuda: loadCuda,
  onednn: loadOnednn,
  tensorflow: loadTensorflow,
  webgpu: loadWebGpu,
  wasm: loadWasm,
  cpu: loadCpu,
};

const autoOrder: BackendName[] = ['cuda', 'tensorflow', 'webgpu', 'onednn', 'wasm', 'cpu'];

async function tryBackend(name: BackendName, options: InitBackendOptions, auto: boolean): Promise<string | undefined> {
  try {
    if (tf.getBackend() !== name || !tf.findBackend(name)) {
      await loaders[name](options, auto);
      if (!(await tf.setBackend(name))) return `tf.setBackend('${name}') failed`;
      await tf.ready();
    }
    return undefined;
  } catch (error) {
    return firstLine(error);
  }
}

/**
 * Selects and initialises a tfjs backend. `auto` tries cuda (an NVIDIA GPU with the CUDA libraries), then
 * tensorflow (tfjs-node-gpu, then tfjs-node),
 * then webgpu (if an adapter exists), then wasm, then cpu, and returns the first that works.
 * A named backend that cannot start throws an error saying why.
 */
export async function initBackend(
  requested: BackendName | 'auto',
  options: InitBackendOptions = {},
): Promise<BackendName> {
  // PROD: no debug checks or console banners (the cpu backend otherwise advertises tfjs-node).
  tf.env().set('PROD', true);
  const candidates = requested === 'auto' ? autoOrder : [requested];
  const reasons: string[] = [];
  for (const name of candidates) {
    const reason = await tryBackend(name, options, requested === 'auto');
    options.onAttempt?.({ backend: name, ok: reason === undefined, ...(reason ? { reason } : {}) });
    if (reason === undefined) return name;
    reasons.push(`${name}: ${reason}`);
  }
  throw new Error(`Cannot start tfjs backend '${requested}' (${reasons.join('; ')})`);
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : typeof error === 'object' && error && 'message' in error
    ? String((error as { message: unknown }).message) : String(error);
  return message.split('\n')[0];
}
