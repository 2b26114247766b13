import * as tf from '@tensorflow/tfjs-core';
import type { BackendName } from '@virnucpro/ops';
import type { CudaBackend } from '@virnucpro/tfjs-backend-cuda';
import { backends, type ComputeSettings } from './backends.js';
import { firstLine } from './first-line.js';
import { defaultPrecision } from './precision.js';

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
export interface ComputeDescription extends Omit<ComputeSettings, 'threads'> {
  /** Only on `cuda`. */
  cuda?: CudaDeviceSummary;
}

/**
 * Starts the backend of `settings` in this process (or thread): a worker's first step, or a one-process
 * command's after planCompute. Nothing is probed or chosen here (`auto` was resolved in the parent); a
 * backend that cannot start throws an error saying why. Models then load onto it. Without a precision: the
 * backend's default (tests and scripts that name a backend).
 */
export async function startCompute(given: Omit<ComputeSettings, 'precision'> & { precision?: ComputeSettings['precision'] }): Promise<ComputeDescription> {
  const settings: ComputeSettings = { ...given, precision: given.precision ?? defaultPrecision(given.backend) };
  const { backend } = settings;
  // PROD: no debug checks or console banners (the cpu backend otherwise advertises tfjs-node).
  tf.env().set('PROD', true);
  if (tf.getBackend() !== backend || !tf.findBackend(backend)) {
    try {
      await backends[backend].load(settings);
      if (!(await tf.setBackend(backend))) throw new Error(`tf.setBackend('${backend}') failed`);
      await tf.ready();
    } catch (error) {
      throw new Error(`Cannot start tfjs backend '${backend}' (${backend}: ${firstLine(error)})`);
    }
  }
  return describeComputeBackend(backend);
}

/** Backend, precision and (on cuda) GPU and library versions of the current tfjs backend. */
export function describeComputeBackend(backend: BackendName = tf.getBackend() as BackendName): ComputeDescription {
  // Duck-typed: a second copy of the cuda package would fail an instanceof check.
  const instance = tf.backend() as unknown as Partial<Pick<CudaBackend, 'describe'>>;
  if (backend !== 'cuda' || typeof instance.describe !== 'function') return { backend, precision: defaultPrecision(backend) };
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
