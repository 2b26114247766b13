// Messages between the pool (parent) and a worker process (child). The child side is
// implemented in ../worker/worker-entry.mjs (plain JS so it runs without a build).
import type { DeviceInfo, WorkerPluginSpec } from './plugin.js';

export type ToWorker =
  | {
      type: 'init';
      spec: WorkerPluginSpec;
      device: DeviceInfo;
      compute?: unknown;
      workerIndex: number;
      heartbeatIntervalMs: number;
    }
  | { type: 'embed'; batchId: number; items: unknown[] }
  | { type: 'shutdown' };

export type FromWorker =
  /** `info`: the model's describe(), if it has one. */
  | { type: 'ready'; dim: number; pid: number; env: Record<string, string | undefined>; info?: Record<string, unknown>; concurrentBatches?: number }
  | { type: 'init-error'; error: SerializedError }
  | { type: 'heartbeat' }
  | { type: 'started'; batchId: number }
  /**
   * `vectors` holds items.length × dim floats, row-major. `counters`: how much the model's counters() grew
   * while this batch ran (absent when the model has none).
   */
  | { type: 'result'; batchId: number; vectors: Float32Array; seconds: number; counters?: Record<string, number> }
  | { type: 'failed'; batchId: number; error: SerializedError; counters?: Record<string, number> };

/**
 * An error as it crosses the boundary (worker/serialize-error.mjs): its class name (its kind), message, stack, Node's
 * `code`, its other own fields that are plain data, and its cause. The parent rebuilds it as a WorkerError.
 */
export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  code?: string | number;
  data?: Record<string, unknown>;
  cause?: SerializedError;
}
