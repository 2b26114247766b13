import type { BackendName, Precision } from '@virnucpro/ops';

/** Compute backends a worker can be asked to run on: `@virnucpro/ops`' names (one list for every package). */
export type { BackendName, Precision };

/**
 * Where a model plugin lives. The worker process resolves `module` with a dynamic `import()`
 * (a package name, an absolute file path or a file: URL) and calls `module[export](options, ctx)`.
 */
export interface WorkerPluginSpec {
  module: string;
  export: string;
  /** Passed verbatim to the factory; must survive structured cloning. */
  options: unknown;
}

/** The device one worker process is bound to. */
export interface DeviceInfo {
  /** Stable label used in telemetry and `--devices` (e.g. "cpu:0", "cuda:2", "webgpu:1"). */
  label: string;
  kind: 'cpu' | 'cuda' | 'webgpu';
  /** Device number as the user names it in `--devices` (CPU workers: the worker number). */
  id: number;
  /** Human-readable name (GPU model, adapter description). */
  name?: string;
  /**
   * Extra environment variables the worker process is started with: what selects its device
   * (CUDA_VISIBLE_DEVICES; for webgpu, the Dawn flags of `@virnucpro/ops`' dawnFlagsEnvVar).
   */
  env: Record<string, string>;
  /**
   * Device nodes of the other GPUs, made unusable in this worker's private mount namespace, so that Dawn
   * sees this GPU alone (identical GPUs cannot be told apart by adapter name). See device-isolation.ts.
   */
  hideDeviceNodes?: string[];
}

/** What a factory receives besides its options. */
export interface WorkerContext {
  device: DeviceInfo;
  /** `auto` only in a pool started with `thread` and `auto`: the model picks the backend where it runs. */
  backend: BackendName | 'auto';
  /** Float precision asked for (`cuda` only; undefined = the backend's default). */
  precision?: Precision;
  /** Index of the worker slot in the pool (stays the same across restarts). */
  workerIndex: number;
}

/** A loaded model inside a worker process. */
export interface WorkerModel<I> {
  readonly dim: number;
  tokenCount(item: I): number;
  /** One vector of length `dim` per item, in the order of `items`. */
  embed(items: I[]): Promise<Float32Array[]>;
  /**
   * What the model runs on (backend, precision, GPU, library versions…), sent to the parent once the model
   * has loaded; shows up as `info` in the pool's telemetry. Must survive structured cloning.
   */
  describe?(): Record<string, unknown>;
  /**
   * Counters of this model instance since it loaded (e.g. batches split after running out of GPU memory).
   * The worker reports their growth with every batch; the pool sums them per slot across restarts
   * (telemetry `counters`).
   */
  counters?(): Record<string, number>;
  dispose?(): void;
}

export type WorkerModelFactory<I> = (options: unknown, ctx: WorkerContext) => Promise<WorkerModel<I>>;
