import type { Embedder } from '@virnucpro/ops';

/**
 * Where a model plugin lives. The worker process resolves `module` with a dynamic `import()`
 * (a package name, an absolute file path or a file: URL) and calls `module[export](options, ctx)`.
 */
export interface WorkerPluginSpec {
  module: string;
  export: string;
  /** Passed verbatim to the factory; must survive structured cloning. */
  options: unknown;
  /**
   * A small module the worker imports and calls (`prepare[export](ctx)`, the factory's context) before it imports
   * `module`: work that can go on while the model's code loads, such as a GPU driver's start. Not awaited; a failure
   * here is ignored (the factory meets it again and reports it).
   */
  prepare?: { module: string; export: string };
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
   * (CUDA_VISIBLE_DEVICES; for webgpu, the Dawn flags in VIRNUCPRO_DAWN_FLAGS, set by @virnucpro/compute).
   */
  env: Record<string, string>;
  /**
   * Device nodes of the other GPUs, made unusable in this worker's private mount namespace, so that Dawn
   * sees this GPU alone (identical GPUs cannot be told apart by adapter name). See device-isolation.ts.
   */
  hideDeviceNodes?: string[];
}

/** What a factory receives besides its options. */
export interface WorkerContext<C = unknown> {
  device: DeviceInfo;
  /**
   * The pool's `compute`, as given (structured-cloned): what this worker computes with, e.g. the backend and
   * precision @virnucpro/compute's planCompute chose, for the factory to start before it loads its model.
   */
  compute?: C;
  /** Index of the worker slot in the pool (stays the same across restarts). */
  workerIndex: number;
}

/**
 * What a plugin exports: loads its model in a worker process and returns it as an `Embedder<I>` (@virnucpro/ops,
 * the one contract of an embedding model). The pool uses `dim`, `embed`, `describe?` (telemetry `info`, sent once
 * the model has loaded), `counters?` (their growth is reported with every batch and summed per slot across
 * restarts: telemetry `counters`) and `dispose`.
 */
export type WorkerModelFactory<I, C = unknown> = (options: unknown, ctx: WorkerContext<C>) => Promise<Embedder<I>>;
