// Messages between the pool (parent) and a worker process (child). The child side is
// implemented in ../worker/worker-entry.mjs (plain JS so it runs without a build).
import type { BackendName, DeviceInfo, WorkerPluginSpec } from './plugin.js';

export type ToWorker =
  | {
      type: 'init';
      spec: WorkerPluginSpec;
      device: DeviceInfo;
      backend: BackendName;
      workerIndex: number;
      heartbeatIntervalMs: number;
    }
  | { type: 'embed'; batchId: number; items: unknown[] }
  | { type: 'shutdown' };

export type FromWorker =
  | { type: 'ready'; dim: number; pid: number; env: Record<string, string | undefined> }
  | { type: 'init-error'; message: string; stack?: string }
  | { type: 'heartbeat' }
  | { type: 'started'; batchId: number }
  /** `vectors` holds items.length × dim floats, row-major. */
  | { type: 'result'; batchId: number; vectors: Float32Array; seconds: number }
  | { type: 'failed'; batchId: number; message: string };
