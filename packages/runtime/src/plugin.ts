/** Compute backends a worker can be asked to run on (same names as `@virnucpro/ops`). */
export type BackendName = 'cpu' | 'wasm' | 'webgpu' | 'tensorflow';

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
  /** Extra environment variables the worker process is started with (e.g. CUDA_VISIBLE_DEVICES). */
  env: Record<string, string>;
  /** Dawn flags for `webgpu.create(flags)` that select this adapter (webgpu only). */
  dawnFlags?: string[];
  /**
   * Device nodes of the other GPUs, made unusable in this worker's private mount namespace, so that Dawn
   * sees this GPU alone (identical GPUs cannot be told apart by adapter name). See device-isolation.ts.
   */
  hideDeviceNodes?: string[];
}

/** What a factory receives besides its options. */
export interface WorkerContext {
  device: DeviceInfo;
  backend: BackendName;
  /** Index of the worker slot in the pool (stays the same across restarts). */
  workerIndex: number;
}

/** A loaded model inside a worker process. */
export interface WorkerModel<I> {
  readonly dim: number;
  tokenCount(item: I): number;
  /** One vector of length `dim` per item, in the order of `items`. */
  embed(items: I[]): Promise<Float32Array[]>;
  dispose?(): void;
}

export type WorkerModelFactory<I> = (options: unknown, ctx: WorkerContext) => Promise<WorkerModel<I>>;
