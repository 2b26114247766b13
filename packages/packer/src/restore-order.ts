import { Observable, type OperatorFunction } from 'rxjs';

export interface RestoreOrderOptions {
  /** Index of the first value (default 0). */
  firstIndex?: number;
}

/**
 * RxJS operator: re-emits values in `index` order (firstIndex, firstIndex+1, …), holding early arrivals
 * until the gap before them is filled. Errors on a duplicate or already-emitted index, and at completion
 * if an index never arrived (so a lost item cannot go unnoticed).
 */
export function restoreOrder<R extends { index: number }>(options: RestoreOrderOptions = {}): OperatorFunction<R, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      let next = options.firstIndex ?? 0;
      const early = new Map<number, R>();
      return source.subscribe({
        next(value) {
          const index = value.index;
          if (!Number.isInteger(index) || index < next || early.has(index)) {
            subscriber.error(new RangeError(`restoreOrder: index ${index} is duplicated or out of range (next expected ${next})`));
            return;
          }
          if (index !== next) {
            early.set(index, value);
            return;
          }
          subscriber.next(value);
          next++;
          for (let held = early.get(next); held !== undefined; held = early.get(next)) {
            early.delete(next);
            subscriber.next(held);
            next++;
          }
        },
        error(error) {
          subscriber.error(error);
        },
        complete() {
          if (early.size > 0) {
            const firstHeld = [...early.keys()].reduce((a, b) => Math.min(a, b));
            subscriber.error(new Error(`restoreOrder: index ${next} never arrived (${early.size} later values held, first ${firstHeld})`));
            return;
          }
          subscriber.complete();
        },
      });
    });
}
