import type { Observable } from 'rxjs';

/**
 * Turns an Observable into an AsyncIterable: values wait in a buffer until the consumer asks, and each passes
 * through `deliver` as it is handed over (to count deliveries, so a read-ahead gate can pace the producer by the
 * consumer's speed, or to finish a value asynchronously in delivery order without an inner subscription per value).
 * A `deliver` that throws ends the iteration with that error and unsubscribes the source.
 */
export function toAsyncIterable<T, R>(source: Observable<T>, deliver: (value: T) => R | Promise<R>): AsyncIterable<R> {
  return {
    [Symbol.asyncIterator]() {
      // A queue read from `head`: Array#shift moves every waiting value, and tens of thousands can wait for a
      // slow consumer (embed's writer), which made the shifts a sixth of embed dnabert's main thread.
      const buffer: (T | undefined)[] = [];
      let head = 0;
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
        async next(): Promise<IteratorResult<R>> {
          for (;;) {
            if (head < buffer.length) {
              const value = buffer[head] as T;
              buffer[head++] = undefined;
              if (head >= 1024 && head * 2 >= buffer.length) {
                buffer.splice(0, head);
                head = 0;
              }
              try {
                const delivered = deliver(value);
                return { value: delivered instanceof Promise ? await delivered : delivered, done: false };
              } catch (error) {
                subscription.unsubscribe();
                buffer.length = 0;
                head = 0;
                failure ??= error;
                finished = true;
                throw error;
              }
            }
            if (failure) throw failure;
            if (finished) return { value: undefined, done: true };
            await new Promise<void>((resolve) => (wake = resolve));
            wake = null;
          }
        },
        async return(): Promise<IteratorResult<R>> {
          subscription.unsubscribe();
          finished = true;
          return { value: undefined, done: true };
        },
      };
    },
  };
}
