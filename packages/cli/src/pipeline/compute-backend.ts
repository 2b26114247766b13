// The one module that starts the tfjs backend the embedding models run on: in predict's worker processes,
// in-process with --workers 0, and for `virnucpro embed`. It imports @virnucpro/tfjs-backend-cuda
// statically (which only registers the `cuda` backend; nothing touches a GPU until tfjs creates it) so a
// bundled build includes the backend.
import '@virnucpro/tfjs-backend-cuda';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, type BackendName, type Precision } from '@virnucpro/ops';
import { probeCuda, type CudaBackend } from '@virnucpro/tfjs-backend-cuda';
import { checkPrecisionOption, resolvePrecision } from '../config/precision.js';

/** What `(tf.backend() as CudaBackend).describe()` says about the GPU and its libraries, for run summaries. */
export interface CudaDeviceSummary {
  /** GPU name, e.g. "NVIDIA H100 80GB HBM3". */
  gpu: string;
  /** e.g. "sm_90". */
  arch: string;
  /** The driver's CUDA version, e.g. "13.0". */
  driverCudaVersion: string;
  nvrtcVersion: string;
  cublasLtVersion: number;
}

/** The backend a model runs on, as a run summary records it. */
export interface ComputeDescription {
  backend: BackendName;
  precision: Precision;
  /** Only on `cuda`. */
  cuda?: CudaDeviceSummary;
}

/** How a precision error explains a backend that `auto` picked. */
export const AUTO_NOTE = ' (picked by --backend auto: no usable CUDA GPU here; --backend cuda says why)';

/** `--backend cuda` where it cannot run: no driver, GPU or CUDA libraries (the message says what was looked for, where). */
export class CudaUnavailableError extends Error {
  override readonly name = 'CudaUnavailableError';
}

/**
 * Starts `requested` (or the first that works, for `auto`) with `precision` on cuda, then checks the
 * precision against the backend it got. A backend that cannot start throws an error saying why; for cuda,
 * what was looked for and where.
 */
export async function startComputeBackend(requested: BackendName | 'auto', precision?: Precision): Promise<ComputeDescription> {
  checkPrecisionOption(requested, precision);
  if (requested === 'cuda') {
    // Asked first, so the answer keeps its lines (initBackend folds it into one).
    const probe = probeCuda();
    if (!probe.ok) throw new CudaUnavailableError(`--backend cuda cannot run here: ${probe.reason}`);
  }
  const backend = await initBackend(requested, precision ? { precision } : {});
  if (requested === 'auto') resolvePrecision(backend, precision, AUTO_NOTE);
  return describeComputeBackend(backend);
}

/** Backend, precision and (on cuda) GPU and library versions of the current tfjs backend. */
export function describeComputeBackend(backend: BackendName = tf.getBackend() as BackendName): ComputeDescription {
  if (backend !== 'cuda') return { backend, precision: 'fp32' };
  // Duck-typed: a second copy of the cuda package would fail an instanceof check.
  const instance = tf.backend() as unknown as Partial<Pick<CudaBackend, 'describe'>>;
  if (typeof instance.describe !== 'function') return { backend, precision: resolvePrecision(backend, undefined) };
  const d = instance.describe();
  return {
    backend,
    precision: d.precision,
    cuda: { gpu: d.device, arch: d.arch, driverCudaVersion: d.driverCudaVersion, nvrtcVersion: d.nvrtcVersion, cublasLtVersion: d.cublasLtVersion },
  };
}

/** "cpu", "cuda fp16 (NVIDIA H100 80GB HBM3)": for log lines. */
export function describeForLog(compute: ComputeDescription): string {
  return compute.backend === 'cuda' ? `cuda ${compute.precision}${compute.cuda ? ` (${compute.cuda.gpu})` : ''}` : compute.backend;
}

/**
 * Starts collecting how busy the GPU is (the cuda backend reads the driver's own utilisation samples through NVML); a no-op on
 * other backends or without NVML. `gpuUtilization()` returns the samples so far.
 */
export function startGpuUtilizationSampling(): void {
  (tf.backend() as unknown as Partial<Pick<CudaBackend, 'startUtilizationSampling'>>).startUtilizationSampling?.();
}

export function gpuUtilization(): { samples: number; percentSum: number } {
  const totals = (tf.backend() as unknown as Partial<Pick<CudaBackend, 'utilizationTotals'>>).utilizationTotals?.();
  return totals ?? { samples: 0, percentSum: 0 };
}

/** Peak bytes the current backend's tensors held on the GPU (the cuda backend reports it; 0 where unknown). */
export function peakGpuBytes(): number {
  return (tf.memory() as { peakBytesInGPU?: number }).peakBytesInGPU ?? 0;
}
