import { Subject, concatMap } from 'rxjs';
import { WindowPacker, packArray, restoreOrder, type PackItem, type PackedBatch } from '@virnucpro/packer';
import { CounterGate, allGates, whenOpen } from './credit-gate.js';
import type { EmbeddingCheckpoint } from './embedding-checkpoint.js';
import { toAsyncIterable } from './ordered-buffer.js';
import type { BatchEmbedder } from './serial-embedder.js';

export interface RunEmbeddingOptions<I> {
  items: AsyncIterable<I>;
  pack: {
    tokenBudget: number;
    /** Items packed together (first-fit decreasing over this many). */
    window: number;
    /** Tokens of one item as the model counts them (default: string length, or JSON length). */
    tokenCount?: (item: I) => number;
    /**
     * Pack with `WindowPacker`: the emptiest batch of a window, if under 90 % full, is held back once and
     * re-packed with the next window's items (default false: each window is packed on its own).
     */
    carry?: boolean;
  };
  /** A worker pool (`startPool`), or any embedder of packed batches with credit (`serialEmbedder`). */
  pool: BatchEmbedder<I>;
  checkpoint?: EmbeddingCheckpoint;
  /** Identifier stored next to each vector in checkpoints (default: `item.id`, else the index). */
  idOf?: (item: I, index: number) => string;
  /**
   * Items read but neither inside the pool nor delivered to the consumer, at most (default
   * 2 × window). Keeps the reader from running ahead of a slow consumer.
   */
  maxReadAhead?: number;
  onProgress?: (stats: Readonly<RunStats>) => void;
}

export interface RunStats {
  /** Items taken from the input. */
  read: number;
  /** Items embedded by the pool in this run. */
  embedded: number;
  /** Items whose vectors came from verified checkpoint shards instead of the pool. */
  resumedSequences: number;
  /** Results handed to the consumer (in input order). */
  delivered: number;
  /** Largest observed `read − (embedded + resumed)`; bounded by window + K·workers·batch. */
  maxOutstanding: number;
}

export interface EmbeddingResult<I> {
  index: number;
  item: I;
  vector: Float32Array;
  restored: boolean;
}

export interface EmbeddingRun<I> extends AsyncIterable<EmbeddingResult<I>> {
  readonly stats: Readonly<RunStats>;
}

/**
 * Embeds a stream of items on a worker pool and yields one vector per item in input order.
 * The input is read only on demand (pool credit and a bounded read-ahead), packed into batches
 * window by window, embedded on whichever worker has credit, appended to the checkpoint in
 * completion order, and put back in input order. Items already in a verified checkpoint are
 * not embedded again.
 */
export function runEmbedding<I>(options: RunEmbeddingOptions<I>): EmbeddingRun<I> {
  const { pool, checkpoint, pack } = options;
  const tokenCount = pack.tokenCount ?? defaultTokenCount;
  const idOf = options.idOf ?? defaultId;
  const maxReadAhead = options.maxReadAhead ?? Math.max(2 * pack.window, 1);
  if (!(pack.window >= 1) || !(pack.tokenBudget >= 1)) throw new RangeError('pack.window and pack.tokenBudget must be ≥ 1');

  const stats: RunStats = { read: 0, embedded: 0, resumedSequences: 0, delivered: 0, maxOutstanding: 0 };
  let inPool = 0;
  const readAhead = new CounterGate(() => stats.read - stats.delivered - inPool, maxReadAhead);
  const gate = allGates(pool.gate, readAhead);
  const unordered$ = new Subject<{ index: number; item: I; vector: Float32Array | null; restored: boolean }>();
  let checkpointChain: Promise<unknown> = Promise.resolve();
  let failed = false;

  const fail = (error: unknown) => {
    if (failed) return;
    failed = true;
    unordered$.error(error);
  };
  const progress = () => options.onProgress?.(stats);

  const submit = (batch: PackedBatch<I> | { items: PackItem<I>[] }) => {
    inPool += batch.items.length;
    return pool.submit(batch).then(
      (embedded) => {
        inPool -= batch.items.length;
        stats.embedded += embedded.items.length;
        embedded.items.forEach((packItem, row) => {
          const vector = embedded.vectors[row];
          if (checkpoint) {
            // Handed over now, before the result can be delivered: a checkpoint flush (e.g. on a signal) then
            // holds every result the consumer has seen. Only a shard write it starts is waited for, in order.
            const writing = checkpoint.append({ index: packItem.index, id: idOf(packItem.value, packItem.index), vector });
            if (writing) checkpointChain = checkpointChain.then(() => writing);
          }
          unordered$.next({ index: packItem.index, item: packItem.value, vector, restored: false });
        });
        checkpointChain.catch(fail);
        readAhead.changed();
        progress();
      },
      (error) => fail(error),
    );
  };

  const read = async () => {
    // Batches still in the pool. Settled ones leave the set, so a long run does not keep one
    // promise per batch it ever submitted (that grew the parent's heap with the input size).
    const pending = new Set<Promise<void>>();
    const submitAll = (batches: PackedBatch<I>[]) => {
      for (const batch of batches) {
        const settled = submit(batch);
        pending.add(settled);
        const settle = () => pending.delete(settled);
        settled.then(settle, (error: unknown) => {
          settle();
          fail(error);
        });
      }
    };
    const packer = pack.carry ? new WindowPacker<I>({ tokenBudget: pack.tokenBudget, window: pack.window }) : null;
    let window: PackItem<I>[] = [];
    const flushWindow = () => {
      if (packer) return submitAll(packer.flush());
      if (window.length === 0) return;
      submitAll(packArray(window, { tokenBudget: pack.tokenBudget }));
      window = [];
    };
    const iterator = options.items[Symbol.asyncIterator]();
    try {
      for (let index = 0; ; index++) {
        if (!gate.isOpen()) {
          // About to wait. If the consumer waits for a result sitting in this window, held items must go now
          // (deadlock). It can only be waiting on a held item once everything read before the window was
          // delivered; then read − delivered − inPool = held, so the read-ahead is closed only if held ≥
          // maxReadAhead. Otherwise waiting is safe: delivery reopens the read-ahead. (Flushing on every closed
          // read-ahead sent a partial window each time a fast GPU outpaced the consumer: half-full batches.)
          const held = packer ? packer.held : window.length;
          if (!readAhead.isOpen() && held >= maxReadAhead) flushWindow();
          if (!(await whenOpen(gate, () => failed))) break;
        }
        if (failed) break;
        const step = await iterator.next();
        if (step.done) break;
        const item = step.value;
        stats.read++;
        if (checkpoint?.restored.has(index)) {
          stats.resumedSequences++;
          unordered$.next({ index, item, vector: null, restored: true });
        } else {
          const packItem = { index, tokens: tokenCount(item), value: item };
          if (packer) submitAll(packer.push(packItem));
          else {
            window.push(packItem);
            if (window.length >= pack.window) flushWindow();
          }
        }
        stats.maxOutstanding = Math.max(stats.maxOutstanding, stats.read - stats.embedded - stats.resumedSequences);
      }
      flushWindow();
      await Promise.all([...pending]);
      await checkpointChain;
      if (checkpoint && !failed) await checkpoint.flush();
      if (!failed) unordered$.complete();
    } catch (error) {
      fail(error);
    } finally {
      if (failed) await iterator.return?.();
    }
  };

  const ordered$ = unordered$.pipe(
    restoreOrder(),
    concatMap(async (result) => {
      if (result.vector) return { index: result.index, item: result.item, restored: false, vector: result.vector };
      // Restored vectors are read from their shard only now, in output order, so resuming a
      // large run does not load every stored vector at once.
      const stored = await checkpoint!.restored.get(result.index);
      const id = idOf(result.item, result.index);
      if (stored.id !== id) {
        throw new Error(`checkpoint does not match the input: item #${result.index} is '${id}' but the checkpoint stored '${stored.id}'`);
      }
      return { index: result.index, item: result.item, restored: true, vector: stored.vector };
    }),
  );
  const output = toAsyncIterable(ordered$, () => {
    stats.delivered++;
    readAhead.changed();
  });
  let started = false;
  return {
    stats,
    [Symbol.asyncIterator]() {
      if (started) throw new Error('runEmbedding() results can be iterated only once');
      started = true;
      const iterator = output[Symbol.asyncIterator]();
      void read();
      return {
        next: () => iterator.next(),
        // The consumer stopped early (break, or a throw in its loop): stop reading the input too; batches
        // already submitted finish, nothing more is submitted.
        return: () => {
          failed = true;
          readAhead.changed();
          return iterator.return!();
        },
      };
    },
  };
}

function defaultTokenCount(item: unknown): number {
  return typeof item === 'string' ? item.length : JSON.stringify(item).length;
}

function defaultId(item: unknown, index: number): string {
  if (item && typeof item === 'object' && 'id' in item) return String((item as { id: unknown }).id);
  return String(index);
}
