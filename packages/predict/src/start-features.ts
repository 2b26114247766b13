import { planCompute, refinementPrecision, type ComputeDescription, type ComputePlan, type ComputeRequest } from '@virnucpro/compute';
import type { Precision } from '@virnucpro/ops';
import { startPool, type WorkerPool } from '@virnucpro/runtime';
import type { FeatureModelPaths } from './features-model.js';
import { featuresWorkerPlugin } from './features-plugin.js';
import { describedCompute, featuresTelemetry, type FeaturesTelemetry } from './features-telemetry.js';
import type { FrameItem } from './frame-item.js';
import { embedForRefinement } from './embed-for-refinement.js';
import { framePacking, type FramePacking } from './frame-packing.js';
import { predictErrorOf } from './worker-error-classes.js';

export interface StartFeaturesOptions {
  models: FeatureModelPaths;
  /** The compute flags (`--backend`, `--precision`, `--devices`, `--workers`, `--threads`, `--token-budget`). */
  compute: ComputeRequest;
}

/** The feature model running: a worker pool of it, the plan it runs on, and how to pack frames for it. */
export interface Features {
  /** The pool: `runEmbedding`'s `pool` (the [DNABERT-S | ESM-2] feature of each frame, `pool.dim` values). */
  pool: WorkerPool<FrameItem>;
  plan: ComputePlan;
  /** Backend, precision and GPU as the loaded workers describe them. */
  compute: ComputeDescription;
  /** `runEmbedding`'s `pack` for frames (framePacking): the plan's token budget, ESM-2 tokens per frame, a window of `window` frames, carry-over. */
  pack(window?: number): FramePacking;
  /** The more accurate precision the workers can embed frames at (fp8: bf16), or undefined where there is none. */
  refinesTo: Precision | undefined;
  /** Features of `frames` at `refinesTo`, in order (frame-refinement.ts: the second look at frames near 0.5). */
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
  const pool = await startPool<FrameItem>({
    model: featuresWorkerPlugin(options.models),
    compute: plan.settings,
    ...(plan.devices ? { devices: plan.devices } : { thread: true }),
  }).catch((err: unknown) => {
    // A worker that could not read a model threw a ModelLoadError there; it comes back as a WorkerError of that kind.
    throw predictErrorOf(err);
  });
  const { backend, precision } = plan.settings;
  const planned: ComputeDescription = { backend, precision };
  return {
    pool,
    plan,
    compute: describedCompute(pool.telemetry(), planned),
    pack: (window) => framePacking(plan.tokenBudget, window),
    refinesTo: refinementPrecision(precision),
    refine: (frames) => embedForRefinement(pool, frames, plan.tokenBudget),
    telemetry: () => featuresTelemetry(pool.telemetry(), planned),
    close: () => pool.close(),
  };
}
