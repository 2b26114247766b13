import type { ComputeDescription } from '@virnucpro/compute';
import type { WorkerTelemetry } from '@virnucpro/runtime';
import type { FeaturesCounters } from './features-model.js';

/** What the feature model's workers did, added up: for a run summary. */
export interface FeaturesTelemetry {
  /** Backend, precision and GPU as the workers described them. */
  compute: ComputeDescription;
  oomSplits: number;
  fp32Recomputes: number;
  /** Frames embedded again at the refinement precision (frame-refinement.ts). */
  refinedFrames: number;
  esmTokens: number;
  dnabertTokens: number;
  /** The largest peak of any worker. */
  peakGpuBytes: number;
  gpuBusySamples: number;
  gpuBusyPercentSum: number;
  /** Per worker (slot of the pool). */
  workers: {
    worker: number; device: string; batches: number; frames: number; tokens: number; seconds: number; restarts: number; oomSplits: number;
    cuda?: ComputeDescription['cuda'];
  }[];
}

/** The pool's telemetry read as the feature model's: `fallback` names the compute until a worker described it. */
export function featuresTelemetry(telemetry: WorkerTelemetry[], fallback: ComputeDescription): FeaturesTelemetry {
  const sum = (name: keyof FeaturesCounters) => telemetry.reduce((total, t) => total + counterOf(t, name), 0);
  return {
    compute: describedCompute(telemetry, fallback),
    oomSplits: sum('oomSplits'),
    fp32Recomputes: sum('fp32Recomputes'),
    refinedFrames: sum('refinedFrames'),
    esmTokens: sum('esmTokens'),
    dnabertTokens: sum('dnabertTokens'),
    peakGpuBytes: Math.max(0, ...telemetry.map((t) => counterOf(t, 'peakGpuBytes'))),
    gpuBusySamples: sum('gpuBusySamples'),
    gpuBusyPercentSum: sum('gpuBusyPercentSum'),
    workers: telemetry.map((t) => {
      const cuda = (t.info as Partial<ComputeDescription> | undefined)?.cuda;
      return {
        worker: t.worker, device: t.device, batches: t.batches, frames: t.items, tokens: t.tokens, seconds: t.seconds, restarts: t.restarts,
        oomSplits: counterOf(t, 'oomSplits'), ...(cuda ? { cuda } : {}),
      };
    }),
  };
}

/** Backend, precision and GPU as the workers described them (the first that did), else `fallback`. */
export function describedCompute(telemetry: WorkerTelemetry[], fallback: ComputeDescription): ComputeDescription {
  const described = telemetry.map((t) => t.info as ComputeDescription | undefined).filter((i): i is ComputeDescription => !!i?.backend);
  if (described.length === 0) return fallback;
  const first = described[0];
  const gpus = [...new Set(described.flatMap((d) => (d.cuda ? [d.cuda.gpu] : [])))];
  const arches = [...new Set(described.flatMap((d) => (d.cuda ? [d.cuda.arch] : [])))];
  return {
    backend: first.backend,
    precision: first.precision,
    // Several different GPUs: their names side by side (the library versions are one host's).
    ...(first.cuda ? { cuda: { ...first.cuda, gpu: gpus.join(', '), arch: arches.join(', ') } } : {}),
  };
}

function counterOf(t: WorkerTelemetry, name: keyof FeaturesCounters): number {
  return (t.counters as Partial<FeaturesCounters> | undefined)?.[name] ?? 0;
}
