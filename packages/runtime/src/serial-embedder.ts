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

/**
 * A BatchEmbedder over a model in this process: batches are embedded one at a time, in the order submitted,
 * and the gate is open only while none is waiting or running (so the input is read between batches, as a
 * plain loop would). After a batch fails, the batches queued behind it are not embedded: they reject with
 * the same error. Results report worker 0.
 */
export function serialEmbedder<I>(embed: (batch: PackedBatch<I> | { items: PackItem<I>[] }) => Promise<Float32Array[]>): BatchEmbedder<I> {
  let queued = 0;
  let failure: { error: unknown } | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  const gate = new CounterGate(() => queued, 1);
  return {
    gate,
    submit(batch) {
      queued++;
      const result = chain.then(async (): Promise<EmbeddedBatch<I>> => {
        if (failure) throw failure.error;
        try {
          const vectors = await embed(batch);
          if (vectors.length !== batch.items.length) throw new Error(`embedder returned ${vectors.length} vectors for a batch of ${batch.items.length}`);
          return { items: batch.items, vectors, worker: 0 };
        } catch (error) {
          failure ??= { error };
          throw error;
        }
      });
      chain = result.catch(() => undefined);
      const done = () => {
        queued--;
        gate.changed();
      };
      result.then(done, done);
      return result;
    },
  };
}
