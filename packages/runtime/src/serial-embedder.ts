import type { PackItem, PackedBatch } from '@virnucpro/packer';
import { CounterGate, type CreditGate } from './credit-gate.js';
import type { EmbeddedBatch } from './pool.js';

/** What `runEmbedding` needs from whatever embeds its batches: credit to read on, and the batches' vectors. */
export interface BatchEmbedder<I> {
  /** Open while another batch may be submitted without waiting. */
  readonly gate: CreditGate;
  /** Resolves with one vector per item, in the batch's item order. */
  submit(batch: PackedBatch<I> | { items: PackItem<I>[] }): Promise<EmbeddedBatch<I>>;
}

export interface SerialEmbedderOptions {
  /** Batches embedded at once (default 1: one after the other). */
  concurrent?: number;
  /**
   * The gate also stays open while fewer than this many items wait in batches not yet started (default 0: open only
   * while fewer than `concurrent` batches are waiting or running). A packer hands over a whole window's batches at
   * once; with a window's worth of items here, the next window is read, checked and packed while this one computes.
   */
  waitingItems?: number;
}

/**
 * A BatchEmbedder over a model in this process: batches are embedded in the order submitted, `concurrent` at a time,
 * and the gate is open while fewer than `concurrent` are waiting or running (with 1, the input is read between
 * batches, as a plain loop would) or fewer than `waitingItems` items wait. With 2 on a GPU (@virnucpro/compute
 * batchesInFlight), the next batch's `embed` is called while the one before still computes: its kernels queue behind
 * that batch's on the same stream instead of after its results are read back. After a batch fails, the batches
 * queued behind it are not embedded: they reject with the same error. Results report worker 0.
 */
export function serialEmbedder<I>(
  embed: (batch: PackedBatch<I> | { items: PackItem<I>[] }) => Promise<Float32Array[]>,
  options: SerialEmbedderOptions = {},
): BatchEmbedder<I> {
  const concurrent = Math.max(1, Math.floor(options.concurrent ?? 1));
  const waitingItemsLimit = Math.max(0, Math.floor(options.waitingItems ?? 0));
  let queued = 0;
  let running = 0;
  /** Items in batches submitted and not yet started. */
  let waitingItems = 0;
  let failure: { error: unknown } | undefined;
  /** Batches submitted and not yet started, in order: each is started by calling its function. */
  const waiting: (() => void)[] = [];
  const startWaiting = () => {
    while (running < concurrent && waiting.length > 0) {
      running++;
      waiting.shift()!();
    }
  };
  const batchGate = new CounterGate(() => queued, concurrent);
  const gate: CreditGate & { changed(): void } = {
    isOpen: () => batchGate.isOpen() || waitingItems < waitingItemsLimit,
    changes: batchGate.changes,
    changed: () => batchGate.changed(),
  };
  return {
    gate,
    submit(batch) {
      queued++;
      waitingItems += batch.items.length;
      const started = new Promise<void>((start) => waiting.push(start));
      const result = started.then(async (): Promise<EmbeddedBatch<I>> => {
        waitingItems -= batch.items.length;
        gate.changed();
        try {
          if (failure) throw failure.error;
          const vectors = await embed(batch);
          if (vectors.length !== batch.items.length) throw new Error(`embedder returned ${vectors.length} vectors for a batch of ${batch.items.length}`);
          return { items: batch.items, vectors, worker: 0 };
        } catch (error) {
          failure ??= { error };
          throw error;
        } finally {
          running--;
          startWaiting();
        }
      });
      startWaiting();
      const done = () => {
        queued--;
        gate.changed();
      };
      result.then(done, done);
      return result;
    },
  };
}
