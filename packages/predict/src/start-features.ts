import { availableParallelism } from 'node:os';
import { planCompute, refinementPrecision, type ComputeDescription, type ComputePlan, type ComputeRequest } from '@virnucpro/compute';
import type { Precision } from '@virnucpro/ops';
import { startPool, type WorkerPluginSpec, type WorkerPool } from '@virnucpro/runtime';
import type { FeatureModelPaths } from './features-model.js';
import { featuresWorkerPlugin } from './features-plugin.js';
import { describedCompute, featuresTelemetry, type FeaturesTelemetry } from './features-telemetry.js';
import type { FrameItem } from './frame-item.js';
import { embedForRefinement } from './embed-for-refinement.js';
import { framePacking, type FramePacking } from './frame-packing.js';
import { predictErrorOf } from './worker-error-classes.js';

export interface StartFeaturesOptions {
  /**
   * The two embedding models and, to score frames in the workers, VirNucPro's MLP: with `mlp` the pool returns each
   * frame's two probabilities (others, virus), computed next to its features; without it, the 3,328 features.
   */
  models: FeatureModelPaths & { mlp?: string };
  /** The compute flags (`--backend`, `--precision`, `--devices`, `--workers`, `--threads`, `--token-budget`). */
  compute: ComputeRequest;
  /** Worker threads of the MLP in each worker (default: this machine's cores shared among the workers; 0: on the worker's thread). */
  mlpThreads?: number;
  /**
   * With `models.mlp`: each frame's features come back after its two scores (`SCORE_DIM + featureDim` values), for
   * `--save-embeddings` (saved-embeddings-writer.ts). Off (the default), features never leave the workers.
   */
  keepFeatures?: boolean;
  /**
   * Another worker plugin in place of the feature model (benchmarks of the host side with simulated devices); it
   * must return what the feature model would (scores with `models.mlp`).
   */
  plugin?: WorkerPluginSpec;
}

/** The feature model running: a worker pool of it, the plan it runs on, and how to pack frames for it. */
export interface Features {
  /**
   * The pool: `runEmbedding`'s `pool`. Each frame's two scores (others, virus) when started with an MLP, else its
   * [DNABERT-S | ESM-2] features; `pool.dim` values either way.
   */
  pool: WorkerPool<FrameItem>;
  /** The size of the features the models make (768 + 2560 for the released ones), scored or not. */
  featureDim: number;
  /** DNABERT-S's part of a feature (768 for the released model; ESM-2's follows), where the workers name it. */
  dnabertDim: number | undefined;
  plan: ComputePlan;
  /** Backend, precision and GPU as the loaded workers describe them. */
  compute: ComputeDescription;
  /** `runEmbedding`'s `pack` for frames (framePacking): the plan's token budget, ESM-2 tokens per frame, a window of `window` frames, carry-over. */
  pack(window?: number): FramePacking;
  /** The more accurate precision the workers can embed frames at (fp8: bf16), or undefined where there is none. */
  refinesTo: Precision | undefined;
  /** What the pool returns for `frames` (scores or features), computed at `refinesTo`, in order (frame-refinement.ts). */
  refine(frames: FrameItem[]): Promise<Float32Array[]>;
  /** What the workers did so far (splits, tokens, GPU memory and use, per worker). */
  telemetry(): FeaturesTelemetry;
  close(): Promise<void>;
}

/**
 * Plans the compute once (`auto` resolved here, @virnucpro/compute's planCompute) and starts the feature model on
 * a worker pool: one worker thread of this process (no `devices` / `workers`), or one worker process per device
 * slot. A model that cannot be read fails with a ModelLoadError.
 */
export async function startFeatures(options: StartFeaturesOptions): Promise<Features> {
  const plan = await planCompute(options.compute);
  const slots = plan.devices?.length ?? 1;
  const mlpThreads = options.mlpThreads ?? defaultMlpThreads(slots);
  const starting = startPool<FrameItem>({
    model: options.plugin ?? featuresWorkerPlugin({ ...options.models, mlpThreads, ...(options.keepFeatures ? { withFeatures: true } : {}) }),
    compute: plan.settings,
    ...(plan.devices ? { devices: plan.devices } : { thread: true }),
  });
  starting.catch(() => undefined); // awaited below, after the driver's answer: its failure then is the one reported
  // Workers planned before the driver answered: its refusal (no such GPU) is the error, not the workers' failure to start.
  await plan.devicesConfirmed?.catch((err: unknown) => {
    void starting.then((started) => started.close(), () => undefined);
    throw err;
  });
  const pool = await starting.catch((err: unknown) => {
    // A worker that could not read a model threw a ModelLoadError there; it comes back as a WorkerError of that kind.
    throw predictErrorOf(err);
  });
  const { backend, precision } = plan.settings;
  const planned: ComputeDescription = { backend, precision };
  return {
    pool,
    featureDim: described(pool, 'featureDim') ?? pool.dim,
    dnabertDim: described(pool, 'dnabertDim'),
    plan,
    compute: describedCompute(pool.telemetry(), planned),
    pack: (window) => framePacking(plan.tokenBudget, window),
    refinesTo: refinementPrecision(precision),
    refine: (frames) => embedForRefinement(pool, frames, plan.tokenBudget),
    telemetry: () => featuresTelemetry(pool.telemetry(), planned),
    close: () => pool.close(),
  };
}

/**
 * MLP threads per worker: the cores less one for the main process, shared among the workers (at most 16 each). A
 * GPU's worker scores ~3,000 frames/s of 150-bp reads in fp8 at ~0.4 ms of one core per frame: ~1–2 threads busy.
 */
export function defaultMlpThreads(workers: number, cores = availableParallelism()): number {
  return Math.max(1, Math.min(16, Math.floor((cores - 1) / Math.max(1, workers))));
}

/** A size the workers' scoring models name (scoring-model.ts: the feature size, DNABERT-S's part of it), if they name it. */
function described(pool: WorkerPool<FrameItem>, key: 'featureDim' | 'dnabertDim'): number | undefined {
  for (const t of pool.telemetry()) {
    const value = (t.info as Record<string, unknown> | undefined)?.[key];
    if (typeof value === 'number') return value;
  }
  return undefined;
}
