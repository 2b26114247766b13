import { fileURLToPath } from 'node:url';
import { Observable, Subject, defer, mergeMap, type OperatorFunction } from 'rxjs';
import type { PackItem, PackedBatch } from '@virnucpro/packer';
import { PoisonItemError, WorkerPoolError } from './errors.js';
import type { FromWorker } from './protocol.js';
import type { DeviceInfo, WorkerPluginSpec } from './plugin.js';
import type { PoolEvent } from './pool-events.js';
import { WorkerSlot, type WorkerTelemetry } from './worker-slot.js';
import { WorkerError } from './worker-error.js';
import type { CreditGate } from './credit-gate.js';
import { inProcessDevice } from './in-process-device.js';

/** Path of the worker process script shipped with this package. */
export const defaultWorkerEntry = fileURLToPath(new URL('../worker/worker-entry.mjs', import.meta.url));

export interface PoolOptions {
  model: WorkerPluginSpec;
  /**
   * One worker process per entry, started with its `env` (e.g. @virnucpro/compute's planCompute lists them for
   * `--devices` / `--workers`; `cpuWorkerDevices(n)` for n CPU processes). Not with `thread`.
   */
  devices?: DeviceInfo[];
  /** Handed to every worker's factory as `ctx.compute` (structured-cloned): what it computes with. */
  compute?: unknown;
  /**
   * Credit K: batches a worker may hold when it computes one at a time (one computing, K − 1 queued in its process).
   * Default 2. A worker whose model runs C at once (`concurrentBatches`) holds K + C − 1: still K − 1 waiting, so it
   * starts the next batch the moment one finishes instead of after a round trip through this process.
   */
  inFlightPerWorker?: number;
  /** Consecutive crashes (without a successful batch in between) a slot survives. Default 3. */
  maxRestarts?: number;
  /** Failures of one batch before it is split to isolate a poison item. Default 2. */
  maxBatchAttempts?: number;
  heartbeatIntervalMs?: number;
  /** No heartbeat for this long → the worker is considered hung and is restarted. Default 120 s. */
  heartbeatTimeoutMs?: number;
  /** One batch running longer than this → restarted (0 = no limit). Default 0. */
  batchTimeoutMs?: number;
  /** Model load allowance. Default 10 min. */
  initTimeoutMs?: number;
  throughputIntervalMs?: number;
  /** Override the worker script (e.g. when the parent is bundled into one file). */
  workerEntry?: string;
  env?: Record<string, string>;
  execArgv?: string[];
  /**
   * Run the one worker as a thread of this process (the in-process mode): the model computes off the
   * main thread, so signals, checkpoints and progress stay responsive, through the same pool code. Its device
   * is `inProcessDevice`, and a model that cannot load fails
   * `startPool` with the model's own message: from the caller's side there is no worker to name.
   */
  thread?: boolean;
}

/** A batch with one vector per item, in the batch's item order. */
export interface EmbeddedBatch<I> {
  items: PackItem<I>[];
  vectors: Float32Array[];
  worker: number;
}

interface Job<I> {
  items: PackItem<I>[];
  tokens: number;
  failures: number;
  /** Slots on which this batch (or the batch it was split from) failed: it goes elsewhere while it can. */
  failedOn: Set<number>;
  /** The pool's `batchesEmbedded` when this batch (or the one it was split from) first failed. */
  firstFailedAt: number | null;
  done(result: { items: PackItem<I>[]; vectors: Float32Array[]; worker: number }): void;
  fail(error: Error): void;
}

export interface WorkerPool<I> {
  readonly dim: number;
  readonly devices: DeviceInfo[];
  readonly events$: Observable<PoolEvent>;
  /** Open while some worker has unused credit and nothing waits in the queue. */
  readonly gate: CreditGate;
  submit(batch: PackedBatch<I> | { items: PackItem<I>[] }): Promise<EmbeddedBatch<I>>;
  /** Operator: each packed batch → its embedded batch (completion order, not input order). */
  embed(): OperatorFunction<PackedBatch<I>, EmbeddedBatch<I>>;
  freeCredit(): number;
  telemetry(): WorkerTelemetry[];
  /** Worker pids (for diagnostics and fault-injection tests). */
  pids(): (number | null)[];
  /**
   * Stops the workers: each is asked to exit and killed if it has not after `graceMs` (default 5 s; 0 on a
   * signal, when a batch in progress must not delay the exit).
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Starts one worker process per device slot and resolves once every worker has loaded the model. */
export async function startPool<I>(options: PoolOptions): Promise<WorkerPool<I>> {
  if (options.thread && options.devices !== undefined) {
    throw new WorkerPoolError('thread runs one worker in this process: devices and workers do not apply');
  }
  if (!options.thread && !options.devices?.length) {
    throw new WorkerPoolError('worker processes need devices, one per worker (or thread: one worker in this process)');
  }
  const devices = options.thread ? [inProcessDevice] : options.devices!;
  const pool = new Pool<I>(options, devices);
  await pool.start();
  return pool;
}

class Pool<I> implements WorkerPool<I> {
  readonly events$ = new Subject<PoolEvent>();
  private readonly creditChanged$ = new Subject<void>();
  readonly gate: CreditGate;
  private readonly slots: WorkerSlot[];
  private readonly inFlight = new Map<number, { slot: WorkerSlot; job: Job<I> }>();
  /** Batches in `inFlight` per slot index: the credit gate asks for them at every item read, so they are counted, not searched. */
  private readonly loads: number[];
  private readonly queue: Job<I>[] = [];
  private nextBatchId = 1;
  /** Batches that came back embedded, on any worker (evidence that the workers can embed). */
  private batchesEmbedded = 0;
  private fatal: Error | null = null;
  private closing = false;
  private watchdog: NodeJS.Timeout | null = null;
  private throughputTimer: NodeJS.Timeout | null = null;
  private throughputMark = { items: 0, tokens: 0, at: Date.now() };
  private readyWaiters: { resolve(): void; reject(error: Error): void } | null = null;
  private readonly k: number;
  private readonly maxRestarts: number;
  private readonly maxAttempts: number;
  private readonly heartbeatIntervalMs: number;
  private readonly heartbeatTimeoutMs: number;
  private readonly batchTimeoutMs: number;
  private readonly initTimeoutMs: number;
  dim = 0;

  constructor(
    private readonly options: PoolOptions,
    readonly devices: DeviceInfo[],
  ) {
    this.k = options.inFlightPerWorker ?? 2;
    this.maxRestarts = options.maxRestarts ?? 3;
    this.maxAttempts = Math.max(1, options.maxBatchAttempts ?? 2);
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? 1000;
    this.heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? 120_000;
    this.batchTimeoutMs = options.batchTimeoutMs ?? 0;
    this.initTimeoutMs = options.initTimeoutMs ?? 600_000;
    if (!Number.isInteger(this.k) || this.k < 1) throw new WorkerPoolError(`inFlightPerWorker must be ≥ 1, got ${this.k}`);
    const config = {
      entry: options.workerEntry ?? defaultWorkerEntry,
      spec: options.model,
      ...(options.compute === undefined ? {} : { compute: options.compute }),
      heartbeatIntervalMs: this.heartbeatIntervalMs,
      env: options.env ?? {},
      execArgv: options.execArgv ?? [],
      thread: options.thread ?? false,
    };
    const hooks = {
      onReady: (slot: WorkerSlot) => this.onReady(slot),
      onMessage: (slot: WorkerSlot, message: FromWorker) => this.onMessage(slot, message),
      onExit: (slot: WorkerSlot, reason: string, initError: WorkerError | null) => this.onExit(slot, reason, initError),
    };
    this.slots = devices.map((device, index) => new WorkerSlot(index, device, config, hooks));
    this.loads = this.slots.map(() => 0);
    this.gate = {
      isOpen: () => this.fatal === null && !this.closing && this.freeCredit() > 0,
      changes: this.creditChanged$.asObservable(),
    };
  }

  async start(): Promise<void> {
    const allReady = new Promise<void>((resolve, reject) => (this.readyWaiters = { resolve, reject }));
    for (const slot of this.slots) slot.spawn();
    this.watchdog = setInterval(() => this.checkHealth(), Math.max(50, Math.min(this.heartbeatIntervalMs, 1000)));
    this.watchdog.unref();
    try {
      await allReady;
    } catch (error) {
      await this.close();
      throw error;
    }
    const interval = this.options.throughputIntervalMs ?? 5000;
    this.throughputTimer = setInterval(() => this.reportThroughput(), interval);
    this.throughputTimer.unref();
  }

  freeCredit(): number {
    let credit = 0;
    for (const slot of this.slots) {
      if (slot.state === 'ready' || slot.state === 'starting') credit += this.capacity(slot) - this.slotLoad(slot);
    }
    return credit - this.queue.length;
  }

  submit(batch: { items: PackItem<I>[] }): Promise<EmbeddedBatch<I>> {
    if (this.fatal) return Promise.reject(this.fatal);
    if (batch.items.length === 0) return Promise.resolve({ items: [], vectors: [], worker: -1 });
    return new Promise((resolve, reject) => {
      this.queue.push(this.makeJob(batch.items, 0, resolve, reject));
      this.pump();
    });
  }

  embed(): OperatorFunction<PackedBatch<I>, EmbeddedBatch<I>> {
    // Unbounded merge is fine: the gate keeps upstream from producing batches the pool has no
    // credit for, so at most one window of batches ever waits here.
    return mergeMap((batch) => defer(() => this.submit(batch)));
  }

  telemetry(): WorkerTelemetry[] {
    return this.slots.map((slot) => slot.telemetry(this.slotLoad(slot)));
  }

  pids(): (number | null)[] {
    return this.slots.map((slot) => (slot.child ? slot.pid : null));
  }

  async close(options: { graceMs?: number } = {}): Promise<void> {
    this.closing = true;
    if (this.watchdog) clearInterval(this.watchdog);
    if (this.throughputTimer) clearInterval(this.throughputTimer);
    await Promise.all(this.slots.map((slot) => slot.close(options.graceMs)));
    this.events$.complete();
    this.creditChanged$.complete();
  }

  private makeJob(
    items: PackItem<I>[],
    failures: number,
    done: Job<I>['done'],
    fail: Job<I>['fail'],
    failedOn = new Set<number>(),
    firstFailedAt: number | null = null,
  ): Job<I> {
    return { items, tokens: items.reduce((sum, item) => sum + item.tokens, 0), failures, failedOn, firstFailedAt, done, fail };
  }

  /**
   * A batch that failed on a slot is not given to that slot again while another live slot has not failed it:
   * a GPU that fails every batch would otherwise fail the same batch twice, and the batch would be split and
   * finally a healthy frame reported as the one that breaks it.
   */
  private mayRun(job: Job<I>, slot: WorkerSlot): boolean {
    return !job.failedOn.has(slot.index) || this.slots.every((s) => s.state === 'retired' || job.failedOn.has(s.index));
  }

  /** Batches this worker may hold: K, plus the extra ones its model runs at once. */
  private capacity(slot: WorkerSlot): number {
    return this.k + slot.concurrentBatches - 1;
  }

  private slotLoad(slot: WorkerSlot): number {
    return this.loads[slot.index];
  }

  private addInFlight(batchId: number, slot: WorkerSlot, job: Job<I>): void {
    this.inFlight.set(batchId, { slot, job });
    this.loads[slot.index]++;
  }

  private removeInFlight(batchId: number): void {
    const entry = this.inFlight.get(batchId);
    if (!entry) return;
    this.inFlight.delete(batchId);
    this.loads[entry.slot.index]--;
  }

  /** Hands queued batches to workers with credit, least-loaded first (work stealing by pull). */
  private pump(): void {
    if (this.fatal || this.closing) return;
    while (this.queue.length > 0) {
      // Slots with room, least loaded first; each takes the first queued batch it may run.
      const open = this.slots
        .filter((slot) => slot.state === 'ready' && this.slotLoad(slot) < this.capacity(slot))
        .sort((a, b) => this.slotLoad(a) - this.slotLoad(b));
      let best: WorkerSlot | null = null;
      let at = -1;
      for (const slot of open) {
        at = this.queue.findIndex((job) => this.mayRun(job, slot));
        if (at >= 0) {
          best = slot;
          break;
        }
      }
      if (!best) break;
      const [job] = this.queue.splice(at, 1);
      const batchId = this.nextBatchId++;
      this.addInFlight(batchId, best, job);
      best.send({ type: 'embed', batchId, items: job.items.map((item) => item.value) });
    }
    this.creditChanged$.next();
  }

  private onReady(slot: WorkerSlot): void {
    if (this.dim === 0) this.dim = slot.dim;
    if (slot.dim !== this.dim) {
      this.failAll(new WorkerPoolError(`worker ${slot.index} reports dim ${slot.dim}, others ${this.dim}`));
      return;
    }
    this.events$.next({ type: 'ready', worker: slot.index, device: slot.device.label, pid: slot.pid, seconds: (Date.now() - slot.spawnedAt) / 1000 });
    if (this.readyWaiters && this.slots.every((s) => s.state === 'ready')) {
      this.readyWaiters.resolve();
      this.readyWaiters = null;
    }
    this.pump();
  }

  private onMessage(slot: WorkerSlot, message: FromWorker): void {
    if (message.type !== 'result' && message.type !== 'failed') return;
    // Counted even for a batch no longer ours (e.g. one requeued after a timeout): the work happened.
    slot.addModelCounters(message.counters);
    const entry = this.inFlight.get(message.batchId);
    if (!entry || entry.slot !== slot) return;
    this.removeInFlight(message.batchId);
    if (slot.currentBatch === message.batchId) slot.currentBatch = null;
    const { job } = entry;
    if (message.type === 'result') {
      const vectors = job.items.map((_, row) => message.vectors.subarray(row * this.dim, (row + 1) * this.dim));
      Object.assign(slot.counters, {
        batches: slot.counters.batches + 1,
        items: slot.counters.items + job.items.length,
        tokens: slot.counters.tokens + job.tokens,
        seconds: slot.counters.seconds + message.seconds,
      });
      slot.consecutiveFailures = 0;
      this.batchesEmbedded++;
      this.events$.next({ type: 'batch', worker: slot.index, items: job.items.length, tokens: job.tokens, seconds: message.seconds });
      job.done({ items: job.items, vectors, worker: slot.index });
    } else {
      slot.counters.failures++;
      const error = new WorkerError(message.error);
      this.jobFailed(job, slot, error.message, error);
    }
    this.pump();
  }

  /**
   * Retry a failed batch; after maxBatchAttempts split it in halves until the poison item is alone. `thrown`: what
   * the model threw (absent when the worker died).
   */
  private jobFailed(job: Job<I>, slot: WorkerSlot, reason: string, thrown?: WorkerError): void {
    job.failures++;
    job.failedOn.add(slot.index);
    job.firstFailedAt ??= this.batchesEmbedded;
    const willSplit = job.failures >= this.maxAttempts && job.items.length > 1;
    this.events$.next({ type: 'batch-failed', worker: slot.index, items: job.items.length, reason, willSplit });
    if (job.failures < this.maxAttempts) {
      this.queue.unshift(job);
      return;
    }
    if (job.items.length === 1) {
      if (!thrown && job.firstFailedAt === this.batchesEmbedded) {
        // Its worker died, and so did every worker that tried anything since it first failed: that blames the
        // workers, not the item (a GPU that fails everything would otherwise condemn a healthy frame). It waits
        // for a batch to succeed, or for the workers to exhaust their restarts (WorkerPoolError).
        this.queue.unshift(job);
        return;
      }
      const [item] = job.items;
      this.events$.next({ type: 'poison', index: item.index, reason });
      job.fail(new PoisonItemError(item.index, item.value, reason, thrown ? { cause: thrown } : undefined));
      return;
    }
    const middle = Math.ceil(job.items.length / 2);
    const halves = [job.items.slice(0, middle), job.items.slice(middle)];
    const results: (Float32Array[] | null)[] = [null, null];
    let failed = false;
    const children = halves.map((items, half) =>
      // Halves start one failure short of the limit: the half holding the poison item fails
      // once more and splits again, so isolation costs about log2(batch) failures.
      this.makeJob(
        items,
        this.maxAttempts - 1,
        (result) => {
          results[half] = result.vectors;
          if (results[0] && results[1]) job.done({ items: job.items, vectors: [...results[0], ...results[1]], worker: result.worker });
        },
        (error) => {
          if (!failed) job.fail(error);
          failed = true;
        },
        new Set(job.failedOn),
        job.firstFailedAt,
      ),
    );
    this.queue.unshift(...children);
  }

  private onExit(slot: WorkerSlot, reason: string, initError: WorkerError | null): void {
    if (this.closing) return;
    const lost = [...this.inFlight.entries()].filter(([, entry]) => entry.slot === slot);
    for (const [batchId, { job }] of lost) {
      this.removeInFlight(batchId);
      // Only the batch the worker was computing is blamed; the ones waiting behind it are innocent.
      if (batchId === slot.currentBatch) {
        slot.counters.failures++;
        this.jobFailed(job, slot, `worker ${slot.index} (${slot.device.label}) ${reason}`);
      } else {
        this.queue.unshift(job);
      }
    }
    slot.currentBatch = null;
    this.events$.next({ type: 'worker-exit', worker: slot.index, device: slot.device.label, pid: slot.pid, reason, requeued: lost.length });

    if (this.readyWaiters) {
      // Start-up failure: a model that cannot load is a configuration error, not something to retry.
      const why = initError?.message ?? reason;
      const error = new WorkerPoolError(
        this.options.thread ? why : `worker ${slot.index} (${slot.device.label}) failed to start: ${why}`,
        initError ? { cause: initError } : undefined,
      );
      this.readyWaiters.reject(error);
      this.readyWaiters = null;
      this.fatal = error;
      return;
    }

    slot.consecutiveFailures++;
    if (slot.consecutiveFailures > this.maxRestarts) {
      slot.state = 'retired';
      const remaining = this.slots.filter((s) => s.state !== 'retired').length;
      this.events$.next({ type: 'retired', worker: slot.index, device: slot.device.label, reason, remaining });
      if (remaining === 0) {
        const lastFailure = `worker ${slot.index} (${slot.device.label}) ${initError ? `failed to start: ${initError.message}` : reason}`;
        this.failAll(
          new WorkerPoolError(`every worker failed ${this.maxRestarts + 1} times in a row; last: ${lastFailure}`, initError ? { cause: initError } : undefined),
        );
        return;
      }
    } else {
      slot.counters.restarts++;
      this.events$.next({ type: 'restart', worker: slot.index, device: slot.device.label, attempt: slot.consecutiveFailures });
      const backoff = Math.min(100 * 2 ** (slot.consecutiveFailures - 1), 5000);
      slot.state = 'starting'; // counts as credit while it comes back
      setTimeout(() => {
        if (!this.closing && !this.fatal) slot.spawn();
      }, backoff).unref();
    }
    this.pump();
  }

  private checkHealth(): void {
    const now = Date.now();
    for (const slot of this.slots) {
      if (!slot.child) continue;
      if (slot.state === 'starting' && now - slot.spawnedAt > this.initTimeoutMs) {
        slot.kill(`did not load the model within ${this.initTimeoutMs} ms`);
      } else if (slot.state === 'ready' && now - slot.lastHeartbeat > this.heartbeatTimeoutMs) {
        slot.kill(`sent no heartbeat for ${now - slot.lastHeartbeat} ms (hung)`);
      } else if (slot.state === 'ready' && this.batchTimeoutMs > 0 && slot.currentBatch !== null && now - slot.currentStartedAt > this.batchTimeoutMs) {
        slot.kill(`spent over ${this.batchTimeoutMs} ms on one batch`);
      }
    }
  }

  private reportThroughput(): void {
    const workers = this.telemetry();
    this.events$.next({ type: 'health', workers });
    const items = workers.reduce((sum, w) => sum + w.items, 0);
    const tokens = workers.reduce((sum, w) => sum + w.tokens, 0);
    const now = Date.now();
    const seconds = (now - this.throughputMark.at) / 1000;
    this.events$.next({
      type: 'throughput',
      items,
      tokens,
      seconds,
      itemsPerSecond: (items - this.throughputMark.items) / seconds,
      tokensPerSecond: (tokens - this.throughputMark.tokens) / seconds,
    });
    this.throughputMark = { items, tokens, at: now };
  }

  private failAll(error: Error): void {
    this.fatal = error;
    for (const job of this.queue.splice(0)) job.fail(error);
    for (const [batchId, { job }] of this.inFlight) {
      this.removeInFlight(batchId);
      job.fail(error);
    }
    for (const slot of this.slots) slot.kill('pool failed');
    this.creditChanged$.next();
  }
}
