// How busy the GPU is, as nvidia-smi says it: NVML's utilisation rate (the share of the last sample period in which
// a kernel ran), sampled on a timer. NVML numbers GPUs its own way (not by CUDA_VISIBLE_DEVICES), so the device is
// found by the UUID the CUDA driver gives for our ordinal. Everything here is optional: without NVML (a driver
// install without libnvidia-ml, a container that hides it) the backend simply reports no utilisation.
import { dirname, join } from 'node:path';
import { bindLibrary, type NativeFunction } from './koffi.js';

const NVML_SUCCESS = 0;

/** "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", the form NVML and nvidia-smi use, from CUDA's 16 UUID bytes. */
export function formatGpuUuid(bytes: Uint8Array): string {
  if (bytes.length !== 16) throw new RangeError(`a GPU UUID has 16 bytes, got ${bytes.length}`);
  const hex = Buffer.from(bytes).toString('hex');
  return `GPU-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Running totals of the samples taken so far. */
export interface UtilizationTotals {
  samples: number;
  /** Sum of the sampled utilisation percentages (0–100 each). */
  percentSum: number;
}

export class GpuUtilizationSampler {
  private readonly totals: UtilizationTotals = { samples: 0, percentSum: 0 };
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly read: () => number | undefined) {}

  /**
   * Samples every `intervalMs` until stop(). NVML itself averages over its own sample period (1/6 s to 1 s by GPU),
   * so 200 ms samples, as the benchmarks take with nvidia-smi, see every period. The timer never keeps the process up.
   */
  start(intervalMs = 200): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sampleNow(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  sampleNow(): void {
    let percent: number | undefined;
    try {
      percent = this.read();
    } catch {
      // Runs on a timer: a throw here would end the worker. A reader that fails once is not asked again.
      this.stop();
      return;
    }
    if (percent === undefined) return;
    this.totals.samples++;
    this.totals.percentSum += percent;
  }

  get current(): UtilizationTotals {
    return { ...this.totals };
  }
}

/**
 * A reader of one GPU's utilisation through NVML (libnvidia-ml.so.1 beside libcuda, else the loader's search
 * path), or undefined when NVML or the device cannot be had.
 */
export function nvmlUtilizationReader(cudaLibrary: string, cudaDevice: number): (() => number | undefined) | undefined {
  try {
    const cuda = bindLibrary(cudaLibrary, ['int cuDeviceGetUuid_v2(void *uuid, int device)']);
    const uuidBytes = new Uint8Array(16);
    if (cuda.cuDeviceGetUuid_v2(uuidBytes, cudaDevice) !== 0) return undefined;
    const nvml = loadNvml(join(dirname(cudaLibrary), 'libnvidia-ml.so.1')) ?? loadNvml('libnvidia-ml.so.1');
    if (!nvml || nvml.nvmlInit_v2() !== NVML_SUCCESS) return undefined;
    const handle = new BigUint64Array(1);
    if (nvml.nvmlDeviceGetHandleByUUID(formatGpuUuid(uuidBytes), handle) !== NVML_SUCCESS) return undefined;
    const rates = new Uint32Array(2); // nvmlUtilization_t: { gpu, memory } in percent
    return () => (nvml.nvmlDeviceGetUtilizationRates(handle[0], rates) === NVML_SUCCESS ? rates[0] : undefined);
  } catch {
    return undefined;
  }
}

function loadNvml(path: string): Record<string, NativeFunction> | undefined {
  try {
    return bindLibrary(path, [
      'int nvmlInit_v2()',
      'int nvmlDeviceGetHandleByUUID(const char *uuid, void *device)',
      'int nvmlDeviceGetUtilizationRates(void *device, void *utilization)',
    ]);
  } catch {
    return undefined;
  }
}
