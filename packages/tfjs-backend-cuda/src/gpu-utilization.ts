// How busy the GPU is, as nvidia-smi says it: the share of time in which a kernel ran, from the samples the driver
// itself takes (NVML's sample buffer, one every 1/6 s to 1 s by GPU). Reading that buffer, rather than the current
// rate on a timer, is what makes the figure honest: a timer on the thread that launches the kernels fires mostly
// while that thread waits for the GPU, i.e. while the GPU is busy (an H100, 150K frames: 0.99 that way, where
// nvidia-smi's samples of the same run give ~0.88 for the embedding phase). NVML numbers GPUs its own way (not by
// CUDA_VISIBLE_DEVICES), so the device is found by the UUID the CUDA driver gives for our ordinal. Everything here is
// optional: without NVML (a driver install without libnvidia-ml, a container that hides it) the backend simply
// reports no utilisation.
import { dirname, join } from 'node:path';
import { bindLibrary, type NativeFunction } from './koffi.js';

const NVML_SUCCESS = 0;
const NVML_ERROR_NOT_FOUND = 6; // no sample newer than the timestamp given
const NVML_GPU_UTILIZATION_SAMPLES = 1;
const NVML_VALUE_TYPE_UNSIGNED_INT = 1;
const SAMPLE_BYTES = 16; // nvmlSample_t: unsigned long long timeStamp (µs); nvmlValue_t (8-byte union)

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

/** One driver sample: when it was taken (CPU time, µs) and the percent of its period in which a kernel ran. */
export interface UtilizationSample {
  timeStamp: bigint;
  percent: number;
}

/**
 * The driver's samples newer than `lastSeen` (µs; 0n: all it holds), oldest first; undefined when they cannot be
 * read this time. It may take a while (a driver call), so it is asynchronous.
 */
export type UtilizationSampleReader = (lastSeen: bigint) => Promise<readonly UtilizationSample[] | undefined>;

export class GpuUtilizationSampler {
  private readonly totals: UtilizationTotals = { samples: 0, percentSum: 0 };
  private timer: NodeJS.Timeout | undefined;
  /** Newest sample timestamp seen; undefined until the first read, which only marks where counting starts. */
  private lastSeen: bigint | undefined;
  private reading = false;
  private failed = false;

  constructor(private readonly read: UtilizationSampleReader) {}

  /**
   * Collects the driver's samples every `intervalMs` until stop(). The driver keeps several seconds of samples, so
   * a late timer (a busy thread) loses none; samples from before start() are not counted. The timer never keeps the
   * process up.
   */
  start(intervalMs = 1000): void {
    if (this.timer || this.failed) return;
    void this.collect();
    this.timer = setInterval(() => void this.collect(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads the samples since the last read; skipped while the previous read is still under way. */
  async collect(): Promise<void> {
    if (this.reading || this.failed) return;
    this.reading = true;
    let samples: readonly UtilizationSample[] | undefined;
    try {
      samples = await this.read(this.lastSeen ?? 0n);
    } catch {
      // Runs on a timer: a rejection here would end the worker. A reader that fails once is not asked again.
      this.failed = true;
      this.stop();
      return;
    } finally {
      this.reading = false;
    }
    if (!samples) return;
    const baseline = this.lastSeen === undefined;
    for (const sample of samples) {
      if (this.lastSeen !== undefined && sample.timeStamp <= this.lastSeen) continue;
      this.lastSeen = sample.timeStamp;
      if (baseline) continue;
      this.totals.samples++;
      this.totals.percentSum += sample.percent;
    }
    // An empty buffer at the first read: counting starts now (the driver's clock is the CPU's, in µs).
    if (baseline && this.lastSeen === undefined) this.lastSeen = BigInt(Date.now()) * 1000n;
  }

  get current(): UtilizationTotals {
    return { ...this.totals };
  }
}

/** The samples in a filled nvmlSample_t array of `count` entries. */
export function decodeUtilizationSamples(buffer: Uint8Array, count: number): UtilizationSample[] {
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const samples: UtilizationSample[] = [];
  for (let i = 0; i < count; i++) {
    samples.push({ timeStamp: view.getBigUint64(i * SAMPLE_BYTES, true), percent: view.getUint32(i * SAMPLE_BYTES + 8, true) });
  }
  return samples.sort((a, b) => (a.timeStamp < b.timeStamp ? -1 : a.timeStamp > b.timeStamp ? 1 : 0));
}

/**
 * A reader of one GPU's utilisation samples through NVML (libnvidia-ml.so.1 beside libcuda, else the loader's
 * search path), or undefined when NVML or the device cannot be had. The driver call runs off the JS thread (koffi's
 * async call on a libuv pool thread), so the thread that launches the kernels never waits on it.
 */
export function nvmlUtilizationReader(cudaLibrary: string, cudaDevice: number): UtilizationSampleReader | undefined {
  try {
    const cuda = bindLibrary(cudaLibrary, ['int cuDeviceGetUuid_v2(void *uuid, int device)']);
    const uuidBytes = new Uint8Array(16);
    if (cuda.cuDeviceGetUuid_v2(uuidBytes, cudaDevice) !== 0) return undefined;
    const nvml = loadNvml(join(dirname(cudaLibrary), 'libnvidia-ml.so.1')) ?? loadNvml('libnvidia-ml.so.1');
    if (!nvml || nvml.nvmlInit_v2() !== NVML_SUCCESS) return undefined;
    const handle = new BigUint64Array(1);
    if (nvml.nvmlDeviceGetHandleByUUID(formatGpuUuid(uuidBytes), handle) !== NVML_SUCCESS) return undefined;
    const getSamples = nvml.nvmlDeviceGetSamples;
    const valueType = new Int32Array(1);
    const count = new Uint32Array(1);
    // Called without a buffer, NVML says how many samples it keeps: the buffer for every later read.
    if (getSamples(handle[0], NVML_GPU_UTILIZATION_SAMPLES, 0n, valueType, count, null) !== NVML_SUCCESS || count[0] === 0) return undefined;
    const capacity = count[0];
    const buffer = new Uint8Array(capacity * SAMPLE_BYTES); // one read at a time: the sampler waits for each
    return (lastSeen) =>
      new Promise((resolve, reject) => {
        count[0] = capacity;
        getSamples.async(handle[0], NVML_GPU_UTILIZATION_SAMPLES, lastSeen, valueType, count, buffer, (error: unknown, status: number) => {
          if (error) reject(error);
          else if (status === NVML_ERROR_NOT_FOUND) resolve([]);
          else if (status !== NVML_SUCCESS || valueType[0] !== NVML_VALUE_TYPE_UNSIGNED_INT) resolve(undefined);
          else resolve(decodeUtilizationSamples(buffer, Math.min(count[0], capacity)));
        });
      });
  } catch {
    return undefined;
  }
}

function loadNvml(path: string): Record<string, NativeFunction> | undefined {
  try {
    return bindLibrary(path, [
      'int nvmlInit_v2()',
      'int nvmlDeviceGetHandleByUUID(const char *uuid, void *device)',
      'int nvmlDeviceGetSamples(void *device, int type, unsigned long long lastSeenTimeStamp, void *sampleValType, void *sampleCount, void *samples)',
    ]);
  } catch {
    return undefined;
  }
}
