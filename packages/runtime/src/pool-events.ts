import type { WorkerTelemetry } from './worker-slot.js';

/** Everything the pool reports while it runs (observe `pool.events$`). */
export type PoolEvent =
  | { type: 'ready'; worker: number; device: string; pid: number | null; seconds: number }
  | { type: 'batch'; worker: number; items: number; tokens: number; seconds: number }
  | { type: 'batch-failed'; worker: number; items: number; reason: string; willSplit: boolean }
  | { type: 'worker-exit'; worker: number; device: string; pid: number | null; reason: string; requeued: number }
  | { type: 'restart'; worker: number; device: string; attempt: number }
  /** `remaining`: workers still in service; 0 means the pool fails now (WorkerPoolError). */
  | { type: 'retired'; worker: number; device: string; reason: string; remaining: number }
  | { type: 'poison'; index: number; reason: string }
  | { type: 'health'; workers: WorkerTelemetry[] }
  | { type: 'throughput'; itemsPerSecond: number; tokensPerSecond: number; items: number; tokens: number; seconds: number };
