// GPU time per kernel: a pair of CUDA events around every launch while profiling is on (it serialises nothing,
// but adds two event records per launch, so profile one batch, not a benchmark).
import type { CudaDriver, Handle } from './cuda-driver.js';

export interface KernelTime {
  kernel: string;
  launches: number;
  ms: number;
  share: number;
}

export class KernelProfiler {
  private readonly pending: { name: string; start: Handle; end: Handle }[] = [];

  constructor(private readonly driver: CudaDriver, private readonly stream: Handle) {}

  /** Runs `launch` between two events, filed under `name`. */
  around<T>(name: string, launch: () => T): T {
    const start = this.driver.createEvent(true);
    const end = this.driver.createEvent(true);
    this.driver.record(start, this.stream);
    const result = launch();
    this.driver.record(end, this.stream);
    this.pending.push({ name, start, end });
    return result;
  }

  /** Waits for the recorded work and returns the time per kernel name, largest first. */
  summary(): KernelTime[] {
    const byName = new Map<string, { launches: number; ms: number }>();
    for (const p of this.pending) {
      this.driver.eventSynchronize(p.end);
      const ms = this.driver.elapsedMs(p.start, p.end);
      const entry = byName.get(p.name) ?? { launches: 0, ms: 0 };
      entry.launches++;
      entry.ms += ms;
      byName.set(p.name, entry);
      this.driver.destroyEvent(p.start);
      this.driver.destroyEvent(p.end);
    }
    this.pending.length = 0;
    const total = [...byName.values()].reduce((a, e) => a + e.ms, 0);
    return [...byName.entries()]
      .map(([kernel, e]) => ({ kernel, launches: e.launches, ms: +e.ms.toFixed(3), share: +(e.ms / total).toFixed(4) }))
      .sort((a, b) => b.ms - a.ms);
  }
}
