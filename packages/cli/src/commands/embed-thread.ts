import { fileURLToPath } from 'node:url';
import { batchesInFlight, type ComputeSettings } from '@virnucpro/compute';
import { predictErrorOf, sequenceTooLarge } from '@virnucpro/predict';
import { PoisonItemError, startPool, workerErrorIn } from '@virnucpro/runtime';
import type { EmbedWorkerOptions } from './embed-worker.js';
import type { LoadedModelInfo } from './load-embedding-model.js';

/**
 * `embed`'s model on a worker thread of its own (embed-worker.ts, through @virnucpro/runtime's pool in thread mode):
 * the main thread keeps the reading, the checks, the packing and the output, the model's thread lays out, launches and
 * reads back each batch. On one thread, a burst of the main thread's work (a window of records read and packed) held
 * the next batch's launch back and the GPU waited: `embed dnabert` on 150-bp windows gave 70–76 % of its model bench.
 */
export interface EmbedThread {
  /** The loaded model and what it runs on, as the thread reports them. */
  readonly info: LoadedModelInfo;
  /** Batches to hand over at once: what the thread holds (its credit) and its model runs at once, all kept full. */
  readonly batchesAtOnce: number;
  /** Batches split in two so far after running out of GPU memory. */
  readonly oomSplits: number;
  /** One vector per record from its token ids, in order; `describe(i)` names the i-th record in an error. */
  embed(ids: Int32Array[], describe: (position: number) => string): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/** Batches the thread holds: one computing, one queued behind it (the runtime's default credit). */
const CREDIT = 2;

/** Loads `options.model` on a new thread with the planned `settings`; rejects as the load failed there (a ModelLoadError included). */
export async function startEmbedThread(options: EmbedWorkerOptions, settings: ComputeSettings): Promise<EmbedThread> {
  const pool = await startPool<Int32Array>({
    thread: true,
    model: { module: fileURLToPath(new URL('./embed-worker.js', import.meta.url)), export: 'embedWorkerFactory', options },
    compute: settings,
    inFlightPerWorker: CREDIT,
    // A batch fails once: split in halves (what running out of memory needs), down to the record that fails alone.
    maxBatchAttempts: 1,
    // A thread that dies ends the run, as the model on the main thread did.
    maxRestarts: 0,
    // Its event loop is busy while a CPU backend computes a batch, as the main thread's was: no hang detection.
    heartbeatTimeoutMs: Infinity,
  }).catch((err: unknown) => {
    throw predictErrorOf(err);
  });
  const info = pool.telemetry()[0].info as unknown as LoadedModelInfo;
  let oomSplits = 0;
  pool.events$.subscribe((event) => {
    if (event.type === 'batch-failed' && event.willSplit) oomSplits++;
  });
  return {
    info,
    batchesAtOnce: CREDIT + batchesInFlight(info.compute.backend) - 1,
    get oomSplits() {
      return oomSplits;
    },
    embed: async (ids, describe) => {
      const batch = { items: ids.map((value, index) => ({ index, value, tokens: value.length })) };
      try {
        return (await pool.submit(batch)).vectors;
      } catch (error) {
        throw failureOf(error, describe);
      }
    },
    close: () => pool.close(),
  };
}

/**
 * What a batch's failure on the thread is to the run: a record that runs out of GPU memory alone is named as the
 * main thread names it; any other failure is the model's own error (the pool's isolation of one record, which an
 * error of the GPU would pin on whichever record was tried last, is not the story).
 */
function failureOf(error: unknown, describe: (position: number) => string): unknown {
  const thrown = workerErrorIn(error);
  if (error instanceof PoisonItemError && thrown?.remoteName === 'CudaOutOfMemoryError') {
    return sequenceTooLarge(describe(error.index), thrown);
  }
  return thrown ?? error;
}
