import { Observable } from 'rxjs';
import { whenOpen, type CreditGate } from './credit-gate.js';

/**
 * An Observable that pulls from an async iterable only while `gate` is open: one `next()` per
 * item, each pushed synchronously downstream before the gate is checked again. Nothing is read
 * ahead of demand, so memory stays bounded whatever the input size. Unsubscribing stops the
 * iterator (its `return()` runs, closing files).
 */
export function pull$<T>(source: AsyncIterable<T>, gate?: CreditGate): Observable<T> {
  return new Observable<T>((subscriber) => {
    const iterator = source[Symbol.asyncIterator]();
    let stopped = false;
    (async () => {
      try {
        for (;;) {
          // Waited for only while closed: an await per item would cost a microtask turn on every read.
          if (gate && !gate.isOpen() && !(await whenOpen(gate, () => subscriber.closed))) break;
          if (subscriber.closed) break;
          const step = await iterator.next();
          if (step.done || subscriber.closed) break;
          subscriber.next(step.value);
        }
        subscriber.complete();
      } catch (error) {
        subscriber.error(error);
      } finally {
        stopped = true;
      }
    })();
    return () => {
      if (!stopped) void iterator.return?.();
    };
  });
}
