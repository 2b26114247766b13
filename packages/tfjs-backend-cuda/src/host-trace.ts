// A diagnostic for "why does the GPU wait?", on when VIRNUCPRO_CUDA_TRACE is set (off: nothing is wrapped, no
// cost). It times every native call on this thread (a call that blocks the thread shows as a long one), measures
// how long the stream stays empty between the last queued work finishing and the next work being queued (the GPU
// idles then, as far as this process is concerned), and the thread's event-loop utilisation; it prints a summary
// to stderr every 30 s (or every N ms when the variable is a number ≥ 1000: the start of a run in finer steps) and
// when the backend is disposed.
import { performance } from 'node:perf_hooks';

/** Calls that queue work on the stream: the first one after the stream ran empty ends an idle gap. */
const ENQUEUING = new Set(['cuLaunchKernel', 'cublasLtMatmul', 'cuMemcpyHtoDAsync_v2', 'cuMemcpyDtoHAsync_v2', 'cuMemcpyDtoDAsync_v2', 'cuMemsetD8Async']);
const REPORT_EVERY_MS = 30_000;

interface CallStats {
  count: number;
  ms: number;
  maxMs: number;
  /** Calls that took over 1 ms: the thread was blocked. */
  slow: number;
  slowMs: number;
}

export class HostTrace {
  private readonly calls = new Map<string, CallStats>();
  private drainedAt: number | undefined;
  private idleMs = 0;
  private idleGaps = 0;
  private longestIdleMs = 0;
  /** Gaps over 50 ms: when (wall clock, to line up with other logs) and how long. */
  private readonly longGaps: { at: number; ms: number }[] = [];
  private readonly started: number;
  private readonly eventLoopStart = performance.eventLoopUtilization();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly write: (line: string) => void = (line) => process.stderr.write(line),
    /** Milliseconds (a test passes its own clock). */
    private readonly now: () => number = () => performance.now(),
    reportEveryMs = REPORT_EVERY_MS,
  ) {
    this.started = now();
    this.timer = setInterval(() => this.report('periodic'), reportEveryMs);
    this.timer.unref();
  }

  /** `fn` timed under `name`. */
  wrap<A extends unknown[], R>(name: string, fn: (...args: A) => R): (...args: A) => R {
    return (...args: A) => {
      const start = this.now();
      if (this.drainedAt !== undefined && ENQUEUING.has(name)) this.endIdle(start);
      try {
        return fn(...args);
      } finally {
        this.record(name, this.now() - start);
      }
    };
  }

  /** The stream was seen empty now (all queued work finished): the GPU idles until the next enqueue. */
  streamDrained(): void {
    this.drainedAt ??= this.now();
  }

  report(when: string): void {
    const seconds = (this.now() - this.started) / 1000;
    const elu = performance.eventLoopUtilization(this.eventLoopStart).utilization;
    const lines = [
      `cuda-trace (${when}) after ${seconds.toFixed(1)} s: stream empty ${(this.idleMs / 1000).toFixed(2)} s in ${this.idleGaps} gaps ` +
        `(longest ${this.longestIdleMs.toFixed(1)} ms); this thread's event loop ${(elu * 100).toFixed(1)} % busy`,
    ];
    if (this.longGaps.length > 0) {
      const clock = (at: number) => new Date(at).toISOString().slice(11, 23);
      lines.push(`  gaps over 50 ms: ${this.longGaps.map((g) => `${clock(g.at)} ${g.ms.toFixed(0)} ms`).join(', ')}`);
    }
    const byTime = [...this.calls.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12);
    for (const [name, s] of byTime) {
      lines.push(`  ${name}: ${s.count} calls, ${(s.ms / 1000).toFixed(3)} s, max ${s.maxMs.toFixed(2)} ms, >1 ms: ${s.slow} (${(s.slowMs / 1000).toFixed(3)} s)`);
    }
    this.write(lines.join('\n') + '\n');
  }

  stop(): void {
    clearInterval(this.timer);
    this.report('end');
  }

  private endIdle(now: number): void {
    const gap = now - this.drainedAt!;
    this.drainedAt = undefined;
    this.idleMs += gap;
    this.idleGaps++;
    this.longestIdleMs = Math.max(this.longestIdleMs, gap);
    if (gap > 50 && this.longGaps.length < 500) this.longGaps.push({ at: Date.now() - gap, ms: gap });
  }

  private record(name: string, ms: number): void {
    let s = this.calls.get(name);
    if (!s) this.calls.set(name, (s = { count: 0, ms: 0, maxMs: 0, slow: 0, slowMs: 0 }));
    s.count++;
    s.ms += ms;
    s.maxMs = Math.max(s.maxMs, ms);
    if (ms > 1) {
      s.slow++;
      s.slowMs += ms;
    }
  }
}

let shared: HostTrace | null | undefined;

/** The thread's trace when VIRNUCPRO_CUDA_TRACE is set, else undefined. */
export function hostTrace(): HostTrace | undefined {
  const setting = process.env.VIRNUCPRO_CUDA_TRACE;
  if (shared === undefined) shared = setting ? new HostTrace(undefined, undefined, reportInterval(setting)) : null;
  return shared ?? undefined;
}

/** "1" (or any non-number): every 30 s; a number of milliseconds ≥ 1000: that often. */
export function reportInterval(setting: string): number {
  const ms = Number(setting);
  return Number.isFinite(ms) && ms >= 1000 ? ms : REPORT_EVERY_MS;
}
