import type { CudaDeviceSummary } from '@virnucpro/compute';
import type { FeaturesTelemetry } from '@virnucpro/predict';
import type { RegionOptions } from '@virnucpro/consensus';
import type { ShardSummary } from '../sharding/shard-summary.js';

/** What `run_summary.json` holds: the telemetry of one predict run. */
export interface RunSummary {
  version: 1;
  tool: 'virnucpro-ts';
  startedAt: string;
  finishedAt: string;
  status: 'complete' | 'interrupted' | 'failed';
  input: string;
  chunkLength: number;
  /** How viral chunks were joined into viral_regions.tsv (--region-gap, --region-max-gap, --min-region-chunks). */
  regions?: RegionOptions;
  models: { esm: string; dnabert: string; mlp: string };
  backend: string;
  /** Float precision the models computed in: fp16/bf16/fp32 on cuda, fp32 elsewhere. */
  precision: string;
  /** On cuda: GPU name(s), architecture, the driver's CUDA version, NVRTC and cuBLASLt versions. */
  cuda?: CudaDeviceSummary;
  devices: string[];
  workers: number;
  sequences: number;
  chunks: number;
  frames: number;
  /** Frames whose features came from checkpoint shards instead of being computed. */
  resumedFrames: number;
  /** The same count under its first name (it always counted frames), kept for readers of older summaries. */
  resumedSequences: number;
  tokens: { esm: number; dnabert: number };
  batches: number;
  tokenBudget: number;
  /** Σ tokens in batches / (batches · budget); 1 = every batch full. */
  packingEfficiency: number;
  /** Batches split in two (and retried) because the GPU ran out of memory; 0 when everything fit. */
  oomSplits: number;
  /** ESM-2 proteins recomputed in fp32 because their fp16/bf16/fp8 mean held a NaN or ±Inf (cuda). */
  fp32Recomputes: number;
  /**
   * fp8 with --refine-margin > 0: frames whose virus score lay within `margin` of 0.5 and were embedded again in
   * `precision` (bf16) and classified from that (`frames`: this process's; absent otherwise).
   */
  refinement?: { margin: number; precision: string; frames: number };
  /** Peak GPU memory held by tensors (cuda's allocator: in use, not cached), the largest over workers; absent on backends that do not report it. */
  peakGpuBytes?: number;
  /**
   * Mean GPU utilisation (0–1) from the model loads to the last batch, sampled every 200 ms from NVML as nvidia-smi
   * reports it (the share of time a kernel ran), over all workers' GPUs; absent where it cannot be sampled.
   */
  gpuBusyFraction?: number;
  /**
   * Peak resident memory of this process (its worker threads included: the default mode runs the models in one),
   * from the OS's high-water mark; worker processes of --workers N report theirs in workerStats.
   */
  peakRssBytes: number;
  stageSeconds: Record<string, number>;
  totalSeconds: number;
  sequencesPerSecond: number;
  framesPerSecond: number;
  tokensPerSecond: { esm: number; dnabert: number };
  /** Per worker process (absent when models ran in this process): device, batches, frames, restarts. */
  workerStats?: WorkerStats[];
  /** With --shard K/N: which part of which input this run holds (what `virnucpro merge` checks). */
  shard?: ShardSummary;
  /** With --min-length N: N, and the records shorter than it that were skipped. */
  minLength?: number;
  skippedSequences?: number;
  /** With --save-embeddings: the folder (under --out-dir), the stored dtype, frames and shards written. */
  embeddings?: { folder: string; dtype: string; frames: number; shards: number };
  /** The models carry the DEMO-RANDOM-WEIGHTS marker: the calls mean nothing (absent otherwise). */
  demoModels?: true;
}

/** One worker's share of the run, as the runtime measured it. */
export interface WorkerStats {
  worker: number;
  device: string;
  batches: number;
  frames: number;
  tokens: number;
  /** Seconds inside the worker's embed calls. */
  seconds: number;
  restarts: number;
  /** Batches this worker split after running out of GPU memory. */
  oomSplits: number;
  /** On cuda: this worker's GPU and libraries. */
  cuda?: CudaDeviceSummary;
}

/** Accumulates counters and stage timings during a run and produces the RunSummary at the end. */
export class RunSummaryBuilder {
  private readonly startMs: number;
  private readonly stageStart = new Map<string, number>();
  private readonly stageSeconds: Record<string, number> = {};
  sequences = 0;
  chunks = 0;
  frames = 0;
  /** Frames restored from the checkpoint (written to run_summary.json as resumedFrames and resumedSequences). */
  resumedSequences = 0;
  esmTokens = 0;
  dnabertTokens = 0;
  batches = 0;
  batchedTokens = 0;
  oomSplits = 0;
  fp32Recomputes = 0;
  refinement?: { margin: number; precision: string; frames: number };
  peakGpuBytes = 0;
  gpuBusySamples = 0;
  gpuBusyPercentSum = 0;
  workerStats?: WorkerStats[];
  /** With --min-length. */
  minLength?: { minLength: number; skippedSequences: number };
  /** The demo models (random weights) were used: said in run_summary.json, so the report can warn. */
  demoModels = false;
  private precision = 'fp32';
  private cuda?: CudaDeviceSummary;

  constructor(
    private readonly fixed: Pick<RunSummary, 'input' | 'chunkLength' | 'regions' | 'models' | 'backend' | 'devices' | 'workers' | 'tokenBudget'>,
    private readonly now: () => number = Date.now,
    private readonly peakRss: () => number = () => process.resourceUsage().maxRSS * 1024,
  ) {
    this.startMs = now();
  }

  startStage(name: string): void {
    this.stageStart.set(name, this.now());
  }
  endStage(name: string): void {
    const start = this.stageStart.get(name);
    if (start === undefined) return;
    this.stageSeconds[name] = (this.stageSeconds[name] ?? 0) + (this.now() - start) / 1000;
    this.stageStart.delete(name);
  }
  addStageSeconds(name: string, seconds: number): void {
    this.stageSeconds[name] = (this.stageSeconds[name] ?? 0) + seconds;
  }
  /** Runs `fn` timed as stage `name`. */
  async time<T>(name: string, fn: () => Promise<T>): Promise<T> {
    this.startStage(name);
    try {
      return await fn();
    } finally {
      this.endStage(name);
    }
  }
  addBatch(tokens: number): void {
    this.batches += 1;
    this.batchedTokens += tokens;
  }
  setBackend(backend: string): void {
    this.fixed.backend = backend;
  }
  /** The backend actually used (`auto` resolved), its precision and, on cuda, the GPU and library versions. */
  setCompute(compute: { backend: string; precision: string; cuda?: CudaDeviceSummary }): void {
    this.fixed.backend = compute.backend;
    this.precision = compute.precision;
    this.cuda = compute.cuda ? { ...compute.cuda } : undefined;
  }

  /** fp8's second look at frames near 0.5 runs in this run (--refine-margin): run_summary.json says how many. */
  setRefinement(margin: number, precision: string): void {
    this.refinement = { margin, precision, frames: 0 };
  }

  /** What the feature model's workers report (predict's counters; per worker with worker processes). */
  setFeatures(features: FeaturesTelemetry, perWorker: boolean): void {
    this.setCompute(features.compute);
    this.oomSplits = features.oomSplits;
    this.fp32Recomputes = features.fp32Recomputes;
    if (this.refinement) this.refinement.frames = features.refinedFrames;
    this.esmTokens = features.esmTokens;
    this.dnabertTokens = features.dnabertTokens;
    this.peakGpuBytes = features.peakGpuBytes;
    this.gpuBusySamples = features.gpuBusySamples;
    this.gpuBusyPercentSum = features.gpuBusyPercentSum;
    if (perWorker) this.workerStats = features.workers;
  }

  build(status: RunSummary['status']): RunSummary {
    for (const name of [...this.stageStart.keys()]) this.endStage(name);
    const totalSeconds = (this.now() - this.startMs) / 1000;
    const per = (x: number) => (totalSeconds > 0 ? x / totalSeconds : 0);
    return {
      version: 1,
      tool: 'virnucpro-ts',
      startedAt: new Date(this.startMs).toISOString(),
      finishedAt: new Date(this.now()).toISOString(),
      status,
      ...this.fixed,
      precision: this.precision,
      ...(this.cuda ? { cuda: this.cuda } : {}),
      sequences: this.sequences,
      chunks: this.chunks,
      frames: this.frames,
      resumedFrames: this.resumedSequences,
      resumedSequences: this.resumedSequences,
      tokens: { esm: this.esmTokens, dnabert: this.dnabertTokens },
      batches: this.batches,
      packingEfficiency: this.batches ? this.batchedTokens / (this.batches * this.fixed.tokenBudget) : 0,
      oomSplits: this.oomSplits,
      fp32Recomputes: this.fp32Recomputes,
      ...(this.refinement ? { refinement: { ...this.refinement } } : {}),
      ...(this.peakGpuBytes > 0 ? { peakGpuBytes: this.peakGpuBytes } : {}),
      ...(this.gpuBusySamples > 0 ? { gpuBusyFraction: this.gpuBusyPercentSum / (100 * this.gpuBusySamples) } : {}),
      peakRssBytes: this.peakRss(),
      stageSeconds: this.stageSeconds,
      totalSeconds,
      sequencesPerSecond: per(this.sequences),
      framesPerSecond: per(this.frames),
      tokensPerSecond: { esm: per(this.esmTokens), dnabert: per(this.dnabertTokens) },
      ...(this.workerStats ? { workerStats: this.workerStats } : {}),
      ...(this.minLength ?? {}),
      ...(this.demoModels ? { demoModels: true as const } : {}),
    };
  }
}
