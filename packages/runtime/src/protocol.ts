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
  | { type: 'init-error'; message: string; stack?: string }
  | { type: 'heartbeat' }
  | { type: 'started'; batchId: number }
  /**
   * `vectors` holds items.length × dim floats, row-major. `counters`: how much the model's counters() grew
   * while this batch ran (absent when the model has none).
   */
  | { type: 'result'; batchId: number; vectors: Float32Array; seconds: number; counters?: Record<string, number> }
  | { type: 'failed'; batchId: number; message: string; counters?: Record<string, number> };
