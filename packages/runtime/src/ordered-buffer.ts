import type { Observable } from 'rxjs';

/**
 * Turns an Observable into an AsyncIterable, counting deliveries so a read-ahead gate can
 * pace the producer by the consumer's speed.
 */
export function toAsyncIterable<T>(source: Observable<T>, onDelivered: () => void): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const buffer: T[] = [];
      let finished = false;
      let failure: unknown = null;
      let wake: (() => void) | null = null;
      const subscription = source.subscribe({
        next: (value) => {
          buffer.push(value);
          wake?.();
        },
        error: (error) => {
          failure = error;
          finished = true;
          wake?.();
        },
        complete: () => {
          finished = true;
          wake?.();
        },
      });
      return {
        async next(): Promise<IteratorResult<T>> {
          for (;;) {
            if (buffer.length > 0) {
              const value = buffer.shift()!;
              onDelivered();
              return { value, done: false };
            }
            if (failure) throw failure;
            if (finished) return { value: undefined, done: true };
            await new Promise<void>((resolve) => (wake = resolve));
            wake = null;
          }
        },
        async return(): Promise<IteratorResult<T>> {
          subscription.unsubscribe();
          finished = true;
          return { value: undefined, done: true };
        },
      };
    },
  };
}
