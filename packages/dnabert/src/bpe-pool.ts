import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ChunkRefusal, type ChunkEncoder } from '@virnucpro/ops';

// BPE on worker threads: a caller that tokenizes a stream of records (the CLI's `embed dnabert`, bound by its main
// thread on a GPU) sends them in chunks and awaits each chunk's ids in the order it sent them. Each thread runs the
// same BpeTokenizer (bpe-worker.ts), so the ids are the main thread's.

/** What a BpePool thread starts with. */
export interface WorkerData {
  tokenizerPath: string;
}

/** Main thread → worker: a chunk of sequences to encode. */
export interface ChunkRequest {
  chunk: number;
  sequences: string[];
}

/** Worker → main thread: a chunk's ids (concatenated, `lengths[i]` of them for sequence i), or the sequence refused. */
export type ChunkReply =
  | { chunk: number; ids: Int32Array; lengths: Int32Array }
  | { chunk: number; refused: number; message: string };

/** A sequence the tokenizer refuses: `index` within its chunk, `message` the tokenizer's own (as on the main thread). */
export class BpeRefusal extends ChunkRefusal {
  override name = 'BpeRefusal';
}

export interface BpePoolOptions {
  /** The tokenizer.json the main thread's tokenizer came from. */
  tokenizerPath: string;
  /** Threads; default min(4, cores − 1), at least 1. */
  threads?: number;
  /** The worker module; default `bpe-worker.js` beside this module (dist/, or a bundle that ships it there). */
  workerUrl?: URL;
}

/** The default thread count: leave a core to the main thread. */
export function bpePoolThreads(cores = availableParallelism()): number {
  return Math.max(1, Math.min(4, cores - 1));
}

interface Pending {
  resolve: (ids: Int32Array[]) => void;
  reject: (error: Error) => void;
}

export class BpePool implements ChunkEncoder<string> {
  private nextChunk = 0;
  private readonly pending = new Map<number, Pending>();
  /** Chunks sent to each worker and not yet answered: a chunk goes to the least loaded. */
  private readonly load: number[];
  private closed = false;

  private constructor(private readonly workers: Worker[]) {
    this.load = workers.map(() => 0);
    workers.forEach((worker, w) => {
      worker.on('message', (reply: ChunkReply) => this.answer(w, reply));
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', (code) => {
        if (!this.closed) this.fail(new Error(`BPE worker thread exited (code ${code})`));
      });
    });
  }

  /** Starts the threads and waits until each has loaded the tokenizer. */
  static async start(options: BpePoolOptions): Promise<BpePool> {
    const url = options.workerUrl ?? new URL('./bpe-worker.js', import.meta.url);
    const workerData: WorkerData = { tokenizerPath: options.tokenizerPath };
    const workers: Worker[] = [];
    try {
      for (let i = 0; i < (options.threads ?? bpePoolThreads()); i++) {
        const worker = new Worker(fileURLToPath(url), { workerData });
        // Idle, never what keeps the process alive: an interrupted run exits even if its pool was not closed.
        worker.unref();
        workers.push(worker);
      }
      await Promise.all(workers.map(ready));
    } catch (error) {
      await Promise.all(workers.map((w) => w.terminate()));
      throw error;
    }
    return new BpePool(workers);
  }

  /** The ids of each sequence, in their order; rejects with a BpeRefusal for the first sequence the tokenizer refuses. */
  encode(sequences: string[]): Promise<Int32Array[]> {
    if (this.closed) return Promise.reject(new Error('BpePool: closed'));
    const chunk = this.nextChunk++;
    const w = this.load.indexOf(Math.min(...this.load));
    // A thread with work keeps the process alive (someone awaits its ids); an idle one does not.
    if (this.load[w]++ === 0) this.workers[w].ref();
    const request: ChunkRequest = { chunk, sequences };
    return new Promise((resolve, reject) => {
      this.pending.set(chunk, { resolve, reject });
      this.workers[w].postMessage(request);
    });
  }

  /** Ends the threads; chunks not answered yet are rejected. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.rejectAll(new Error('BpePool: closed'));
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private answer(w: number, reply: ChunkReply): void {
    if (--this.load[w] === 0) this.workers[w].unref();
    const pending = this.pending.get(reply.chunk);
    if (!pending) return;
    this.pending.delete(reply.chunk);
    if ('refused' in reply) return pending.reject(new BpeRefusal(reply.refused, reply.message));
    const out = new Array<Int32Array>(reply.lengths.length);
    for (let i = 0, at = 0; i < out.length; at += reply.lengths[i], i++) out[i] = reply.ids.subarray(at, at + reply.lengths[i]);
    pending.resolve(out);
  }

  private fail(error: Error): void {
    this.rejectAll(error);
    void this.close();
  }

  private rejectAll(error: Error): void {
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }
}

/** Resolves once a new thread has loaded its tokenizer; rejects with its load error or its exit. */
function ready(worker: Worker): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { ready?: true; loadError?: string }) => {
      worker.off('exit', onExit);
      worker.off('error', reject);
      if (m.loadError !== undefined) reject(new Error(m.loadError));
      else resolve();
    };
    const onExit = (code: number) => reject(new Error(`BPE worker thread exited (code ${code}) before it loaded the tokenizer`));
    worker.once('message', onMessage);
    worker.once('exit', onExit);
    worker.once('error', reject);
  });
}
