import { Subject, from, mergeMap, type OperatorFunction } from 'rxjs';
import type { PackItem, PackedBatch } from '@virnucpro/packer';
import { CounterGate, type EmbeddedBatch, type PoolEvent, type WorkerPool } from '@virnucpro/runtime';

interface LocalModel<I> {
  readonly dim: number;
  embed(items: I[]): Promise<Float32Array[]>;
  /** As a worker's WorkerModel: telemetry `info` and `counters`. */
  describe?(): object;
  counters?(): object;
  dispose?(): void;
}

/**
 * The runtime's WorkerPool interface over a model loaded in THIS process (`--workers 0`, the default on
 * CPU). Batches run one at a time; the same runEmbedding code (packing, order, checkpoints) drives it, so
 * the in-process and multi-process paths differ only in where `embed` runs.
 */
export function inProcessPool<I>(model: LocalModel<I>, credit = 2): WorkerPool<I> {
  let queued = 0;
  let chain: Promise<unknown> = Promise.resolve();
  const events = new Subject<PoolEvent>();
  const gate = new CounterGate(() => queued, credit);
  let batches = 0;
  let items = 0;
  let tokens = 0;
  let seconds = 0;
  const submit = (batch: PackedBatch<I> | { items: PackItem<I>[] }): Promise<EmbeddedBatch<I>> => {
    queued++;
    const run = chain.then(async () => {
      const start = performance.now();
      const vectors = await model.embed(batch.items.map((i) => i.value));
      const took = (performance.now() - start) / 1000;
      const batchTokens = batch.items.reduce((s, i) => s + i.tokens, 0);
      batches++;
      items += batch.items.length;
      tokens += batchTokens;
      seconds += took;
      events.next({ type: 'batch', worker: 0, items: batch.items.length, tokens: batchTokens, seconds: took });
      return { items: batch.items, vectors, worker: 0 };
    });
    chain = run.catch(() => undefined);
    return run.finally(() => {
      queued--;
      gate.changed();
    });
  };
  return {
    dim: model.dim,
    devices: [{ label: 'in-process', kind: 'cpu', id: 0, env: {} }],
    events$: events.asObservable(),
    gate,
    submit,
    embed: (): OperatorFunction<PackedBatch<I>, EmbeddedBatch<I>> => mergeMap((batch) => from(submit(batch))),
    freeCredit: () => Math.max(0, credit - queued),
    telemetry: () => [
      {
        worker: 0, device: 'in-process', pid: process.pid, state: 'ready', batches, items, tokens, seconds, restarts: 0, failures: 0, inFlight: queued,
        counters: { ...(model.counters?.() ?? {}) },
        ...(model.describe ? { info: { ...model.describe() } } : {}),
      } as unknown as ReturnType<WorkerPool<I>['telemetry']>[number],
    ],
    pids: () => [process.pid],
    close: async () => {
      await chain;
      events.complete();
      model.dispose?.();
    },
  };
}
