import { Observable, type OperatorFunction } from 'rxjs';
import type { PackedBatch, PackItem, WindowPackOptions } from './pack-types.js';
import { WindowPacker } from './window-packer.js';

export interface PackBatchesOptions extends WindowPackOptions {
  /**
   * Each emission packs and sends what is held now, a partial window: for a consumer that would otherwise wait
   * for items that sit in the window (a reader paced by its consumer; see @virnucpro/runtime's runEmbedding).
   */
  flush?: Observable<unknown>;
}

/**
 * RxJS operator: packs a stream of items into token-budget batches with first-fit decreasing over a
 * bounded window (see WindowPacker). Batches can complete out of input order; put `restoreOrder()`
 * after the per-item results to get them back in order.
 */
export function packBatches<T>(options: PackBatchesOptions): OperatorFunction<PackItem<T>, PackedBatch<T>> {
  return (source) =>
    new Observable<PackedBatch<T>>((subscriber) => {
      const packer = new WindowPacker<T>(options);
      const flushing = options.flush?.subscribe(() => {
        for (const batch of packer.flush()) subscriber.next(batch);
      });
      subscriber.add(() => flushing?.unsubscribe());
      return source.subscribe({
        next(item) {
          let ready: PackedBatch<T>[];
          try {
            ready = packer.push(item);
          } catch (error) {
            subscriber.error(error);
            return;
          }
          for (const batch of ready) subscriber.next(batch);
        },
        error(error) {
          subscriber.error(error);
        },
        complete() {
          for (const batch of packer.flush()) subscriber.next(batch);
          subscriber.complete();
        },
      });
    });
}

/** The same packing for an AsyncIterable of items (no RxJS needed); pulls items only as batches are taken. */
export async function* packAsyncIterable<T>(
  items: AsyncIterable<PackItem<T>> | Iterable<PackItem<T>>,
  options: WindowPackOptions,
): AsyncGenerator<PackedBatch<T>> {
  const packer = new WindowPacker<T>(options);
  for await (const item of items) yield* packer.push(item);
  yield* packer.flush();
}
