import { Observable, Subject, concat, defer, filter, from, ignoreElements, map, merge, mergeMap, share } from 'rxjs';
import { packBatches, restoreOrder, type PackItem } from '@virnucpro/packer';
import { CounterGate, allGates, type CreditGate } from './credit-gate.js';
import type { EmbeddingCheckpoint } from './embedding-checkpoint.js';
import { toAsyncIterable } from './ordered-buffer.js';
import { pull$ } from './pull-source.js';
import type { BatchEmbedder } from './serial-embedder.js';

/**
 * A source that sends items only while `demand` is open (an RxJS chain that starts with `pull$(source, demand)`,
 * e.g. records → `chunkRecords(n, demand)` → `sixFrames()` from `@virnucpro/sixframe`). Items are counted as they
 * arrive; an item sent while the demand is closed is taken, so a source may overshoot by what it sends at once.
 */
export type PacedSource<I> = (demand: CreditGate) => Observable<I>;

export interface RunEmbeddingOptions<I> {
  /** The items: an async iterable (pulled one item at a time) or a paced RxJS source. */
  items: AsyncIterable<I> | PacedSource<I>;
  pack: {
    tokenBudget: number;
    /** Items packed together (first-fit decreasing over this many). */
    window: number;
    /** Tokens of one item as the model counts them (default: string length, or JSON length). */
    tokenCount?: (item: I) => number;
    /**
     * The emptiest batch of a window, if under 90 % full, is held back once and re-packed with the next window's
     * items (default true, as the packer's; false: each window is packed on its own and ends in a part-filled
     * batch — predict's batches were a fifth empty that way).
     */
    carry?: boolean;
    /** The first window is packed once it holds this many tokens, if before `window` items (the packer's option). */
    firstWindowTokens?: number;
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
 *
 * It is the packages' own operators composed (what a package user would write):
 * `pull$(items, gate)` (or the paced source given the gate) → index → [restored | `packBatches` → `pool.submit` per batch → rows, checkpointed]
 * → `restoreOrder()` → an async iterable that paces the reader (and reads restored vectors back as it hands them out).
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
  // Shard writes under way: reading waits while more than one is, so results never pile up behind a slow disk
  // (a host that outruns its checkpoint held 330K results waiting for theirs: memory grew with the input).
  let shardWrites = 0;
  const checkpointWrites = new CounterGate(() => shardWrites, 2);
  const bothOpen = allGates(pool.gate, readAhead, checkpointWrites);
  const flushWindow$ = new Subject<void>();
  // Every item read is held in the packing window, in the pool, embedded, or restored.
  const held = () => stats.read - inPool - stats.embedded - stats.resumedSequences;
  const readGate: CreditGate = {
    isOpen: () => {
      if (bothOpen.isOpen()) return true;
      // About to wait. If the consumer waits for a result sitting in the window, held items must go now
      // (deadlock). It can only be waiting on a held item once everything read before the window was
      // delivered; then read − delivered − inPool = held, so the read-ahead is closed only if held ≥
      // maxReadAhead. Otherwise waiting is safe: delivery reopens the read-ahead. (Flushing on every closed
      // read-ahead sent a partial window each time a fast GPU outpaced the consumer: half-full batches.)
      if (!readAhead.isOpen() && held() >= maxReadAhead) flushWindow$.next();
      return bothOpen.isOpen();
    },
    changes: bothOpen.changes,
  };
  const progress = () => options.onProgress?.(stats);
  // Checkpoint shard writes, waited for in order; a failed one fails the run.
  let checkpointChain: Promise<unknown> = Promise.resolve();
  const checkpointFailure$ = new Subject<never>();

  type Unordered = { index: number; item: I; vector: Float32Array | null; restored: boolean };
  const items = options.items;
  const read$ = (typeof items === 'function' ? defer(() => items(readGate)) : pull$(items, readGate)).pipe(
    map((item, index) => {
      stats.read++;
      return { index, item };
    }),
    share(),
  );
  const isRestored = (index: number) => checkpoint?.restored.has(index) === true;
  const restored$ = read$.pipe(
    filter((read) => isRestored(read.index)),
    map(({ index, item }): Unordered => {
      stats.resumedSequences++;
      return { index, item, vector: null, restored: true };
    }),
  );
  const embedded$ = read$.pipe(
    filter((read) => !isRestored(read.index)),
    map(({ index, item }): PackItem<I> => {
      stats.maxOutstanding = Math.max(stats.maxOutstanding, stats.read - stats.embedded - stats.resumedSequences);
      return { index, tokens: tokenCount(item), value: item };
    }),
    packBatches<I>({ tokenBudget: pack.tokenBudget, window: pack.window, carry: pack.carry ?? true, firstWindowTokens: pack.firstWindowTokens, flush: flushWindow$ }),
    mergeMap((batch) => {
      inPool += batch.items.length;
      return from(pool.submit(batch)).pipe(map((result) => ({ result, submitted: batch.items.length })));
    }),
    mergeMap(({ result, submitted }) =>
      new Observable<Unordered>((subscriber) => {
        inPool -= submitted;
        stats.embedded += result.items.length;
        result.items.forEach((packItem, row) => {
          const vector = result.vectors[row];
          if (checkpoint) {
            // Handed over now, before the result can be delivered: a checkpoint flush (e.g. on a signal) then
            // holds every result the consumer has seen. Only a shard write it starts is waited for, in order.
            const writing = checkpoint.append({ index: packItem.index, id: idOf(packItem.value, packItem.index), vector });
            if (writing) {
              checkpointChain = checkpointChain.then(() => writing);
              shardWrites++;
              const written = () => {
                shardWrites--;
                checkpointWrites.changed();
              };
              writing.then(written, written);
            }
          }
          subscriber.next({ index: packItem.index, item: packItem.value, vector, restored: false });
        });
        checkpointChain.catch((error: unknown) => checkpointFailure$.error(error));
        subscriber.complete();
        readAhead.changed();
        progress();
      }),
    ),
  );
  // After the last result: the checkpoint's pending writes, then its final shard.
  const checkpointDone$ = defer(async () => {
    await checkpointChain;
    await checkpoint?.flush();
    checkpointFailure$.complete(); // nothing more can fail: lets the merge below complete
  }).pipe(ignoreElements());

  const ordered$ = merge(concat(merge(restored$, embedded$), checkpointDone$), checkpointFailure$).pipe(restoreOrder<Unordered>());
  // The consumer's pace opens the read-ahead; stopping early (break, or a throw in its loop) unsubscribes,
  // which stops the reading too (batches already submitted finish, nothing more is submitted).
  const output = toAsyncIterable(ordered$, (result): EmbeddingResult<I> | Promise<EmbeddingResult<I>> => {
    stats.delivered++;
    readAhead.changed();
    if (result.vector) return { index: result.index, item: result.item, restored: false, vector: result.vector };
    // Restored vectors are read from their shard only now, in output order, as the consumer takes them, so
    // resuming a large run does not load every stored vector at once.
    return restoredResult(result.index, result.item);
  });
  const restoredResult = async (index: number, item: I): Promise<EmbeddingResult<I>> => {
    const stored = await checkpoint!.restored.get(index);
    const id = idOf(item, index);
    if (!stored.matches(id)) throw new Error(`checkpoint does not match the input: item #${index} is '${id}' but the checkpoint stored another item there`);
    return { index, item, restored: true, vector: stored.vector };
  };
  let started = false;
  return {
    stats,
    [Symbol.asyncIterator]() {
      if (started) throw new Error('runEmbedding() results can be iterated only once');
      started = true;
      return output[Symbol.asyncIterator]();
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
