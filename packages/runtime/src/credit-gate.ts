import { Observable, Subject, merge } from 'rxjs';

/**
 * Demand signal for a pull-driven source: the source reads its next item only while the gate
 * is open, and waits for a `changes` emission to look again.
 */
export interface CreditGate {
  isOpen(): boolean;
  readonly changes: Observable<unknown>;
}

/** Open only while every gate is open (e.g. pool credit AND a bounded read-ahead). */
export function allGates(...gates: CreditGate[]): CreditGate {
  return {
    isOpen: () => gates.every((gate) => gate.isOpen()),
    changes: merge(...gates.map((gate) => gate.changes)),
  };
}

/** A gate driven by a counter: open while `value() < limit`; call `changed()` after updates. */
export class CounterGate implements CreditGate {
  private readonly changes$ = new Subject<void>();
  readonly changes = this.changes$.asObservable();

  constructor(
    private readonly value: () => number,
    private readonly limit: number,
  ) {}

  isOpen(): boolean {
    return this.value() < this.limit;
  }

  changed(): void {
    this.changes$.next();
  }
}

/** Resolves when the gate is open (now or after a later change); false if aborted first. */
export function whenOpen(gate: CreditGate, isAborted: () => boolean): Promise<boolean> {
  if (gate.isOpen()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const subscription = gate.changes.subscribe({
      next: () => {
        if (isAborted()) finish(false);
        else if (gate.isOpen()) finish(true);
      },
      complete: () => finish(gate.isOpen()),
    });
    function finish(open: boolean) {
      queueMicrotask(() => subscription.unsubscribe());
      resolve(open);
    }
  });
}
