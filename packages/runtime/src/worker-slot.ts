import type { FromWorker, ToWorker } from './protocol.js';
import { startWorkerProcess, startWorkerThread, type WorkerHandle } from './worker-handle.js';
import type { DeviceInfo, WorkerPluginSpec } from './plugin.js';
import { WorkerError } from './worker-error.js';

/** Counters of one worker slot, summed over all its incarnations. */
export interface WorkerTelemetry {
  worker: number;
  device: string;
  pid: number | null;
  state: WorkerSlot['state'];
  batches: number;
  items: number;
  tokens: number;
  /** Seconds spent inside `embed()`, as measured by the worker. */
  seconds: number;
  restarts: number;
  /** Batches that failed or were lost with a crash on this slot. */
  failures: number;
  inFlight: number;
  /** The model's own counters (Embedder.counters), summed over every process of this slot. */
  counters: Record<string, number>;
  /** What the model said it runs on (Embedder.describe) when it last loaded. */
  info?: Record<string, unknown>;
}

export interface SlotHooks {
  onReady(slot: WorkerSlot): void;
  onMessage(slot: WorkerSlot, message: FromWorker): void;
  /**
   * The process is gone; `reason` says why (exit code, signal, or our own kill reason), `initError` what its model's
   * factory threw, if it did.
   */
  onExit(slot: WorkerSlot, reason: string, initError: WorkerError | null): void;
}

export interface SlotConfig {
  entry: string;
  spec: WorkerPluginSpec;
  /** What every worker's factory gets as `ctx.compute` (PoolOptions.compute). */
  compute?: unknown;
  heartbeatIntervalMs: number;
  env: Record<string, string>;
  execArgv: string[];
  /** Run the worker as a thread of this process instead of a child process (the in-process mode). */
  thread?: boolean;
}

/**
 * One worker position in the pool, bound to one device. The process behind it can die and be
 * replaced; the slot keeps the counters and the device.
 */
export class WorkerSlot {
  state: 'starting' | 'ready' | 'dead' | 'retired' | 'closed' = 'dead';
  child: WorkerHandle | null = null;
  pid: number | null = null;
  dim = 0;
  /** Batches the worker's model runs at once (`concurrentBatches`, from its ready message; 1 until then). */
  concurrentBatches = 1;
  lastHeartbeat = 0;
  spawnedAt = 0;
  /** Batch the worker announced it is computing now (blamed if the process dies). */
  currentBatch: number | null = null;
  currentStartedAt = 0;
  consecutiveFailures = 0;
  readonly counters = { batches: 0, items: 0, tokens: 0, seconds: 0, restarts: 0, failures: 0 };
  /** Sums of what the model's counters grew by, as reported with each batch. */
  readonly modelCounters: Record<string, number> = {};
  info: Record<string, unknown> | undefined;
  private killReason: string | null = null;
  private initError: WorkerError | null = null;

  constructor(
    readonly index: number,
    readonly device: DeviceInfo,
    private readonly config: SlotConfig,
    private readonly hooks: SlotHooks,
  ) {}

  spawn(): void {
    this.state = 'starting';
    this.killReason = null;
    this.initError = null;
    this.currentBatch = null;
    this.spawnedAt = Date.now();
    const launch = {
      entry: this.config.entry,
      env: { ...process.env, ...this.config.env, ...this.device.env },
      execArgv: this.config.execArgv,
      hideDeviceNodes: this.device.hideDeviceNodes ?? [],
    };
    const child = this.config.thread ? startWorkerThread(launch) : startWorkerProcess(launch);
    this.child = child;
    this.pid = child.pid;
    child.onMessage((message) => this.receive(child, message));
    child.onExit((exitReason) => {
      if (this.child !== child) return;
      this.child = null;
      const reason = this.killReason ?? exitReason;
      const wasClosing = this.state === 'closed';
      if (!wasClosing) this.state = 'dead';
      if (!wasClosing) this.hooks.onExit(this, reason, this.initError);
    });
    this.send({
      type: 'init',
      spec: this.config.spec,
      device: this.device,
      ...(this.config.compute === undefined ? {} : { compute: this.config.compute }),
      workerIndex: this.index,
      heartbeatIntervalMs: this.config.heartbeatIntervalMs,
    });
  }

  send(message: ToWorker): void {
    this.child?.send(message);
  }

  /** Kills the process or thread at once (a hung event loop would ignore anything gentler). */
  kill(reason: string): void {
    if (!this.child) return;
    this.killReason ??= reason;
    this.child.kill();
  }

  /** Asks the process to exit; kills it if it has not after `graceMs`. */
  async close(graceMs = 5000): Promise<void> {
    const child = this.child;
    this.state = 'closed';
    if (!child || child.exited) return;
    const exited = new Promise<void>((resolve) => child.onExit(() => resolve()));
    this.send({ type: 'shutdown' });
    const timer = setTimeout(() => child.kill(), graceMs);
    await exited;
    clearTimeout(timer);
  }

  telemetry(inFlight: number): WorkerTelemetry {
    return {
      worker: this.index,
      device: this.device.label,
      pid: this.pid,
      state: this.state,
      ...this.counters,
      inFlight,
      counters: { ...this.modelCounters },
      ...(this.info ? { info: this.info } : {}),
    };
  }

  /** Adds what the model's counters grew by during one batch (sent by the worker with its result). */
  addModelCounters(growth: Record<string, number> | undefined): void {
    for (const [name, value] of Object.entries(growth ?? {})) {
      if (Number.isFinite(value)) this.modelCounters[name] = (this.modelCounters[name] ?? 0) + value;
    }
  }

  private receive(child: WorkerHandle, message: FromWorker): void {
    if (this.child !== child) return; // a late message from a process we already replaced
    this.lastHeartbeat = Date.now();
    switch (message.type) {
      case 'ready':
        this.dim = message.dim;
        this.concurrentBatches = Math.max(1, Math.floor(message.concurrentBatches ?? 1));
        this.info = message.info;
        this.state = 'ready';
        this.hooks.onReady(this);
        return;
      case 'init-error':
        this.initError = new WorkerError(message.error);
        return;
      case 'started':
        this.currentBatch = message.batchId;
        this.currentStartedAt = Date.now();
        return;
      case 'heartbeat':
        return;
      default:
        this.hooks.onMessage(this, message);
    }
  }
}
