// The MLP over several worker threads. On a GPU the classifier (~0.4–0.7 ms per row on one core) is slower
// than the embeddings that feed it: a million frames would spend ~6–12 minutes in it on the main thread. Rows
// are independent, so contiguous slices go to threads running the very function MlpClassifier uses
// (makeMlpForward, shipped as source text with its WebAssembly bytes) and the probabilities are the same bytes as a
// single-thread run.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { checkRows, type MlpClassifier } from './mlp-classifier.js';
import { makeMlpForward, type MlpParts } from './mlp-forward.js';
import { mlpHiddenWasm } from './wasm/mlp-hidden-bytes.js';

export interface ThreadedMlpOptions {
  /**
   * Worker threads (default: the cores less two, at most 16: one core each for the caller and for a model thread
   * beside it; 0 computes on the calling thread). On a 16-core H100 host the MLP in plain JavaScript (since
   * replaced by the ~3.7× faster WebAssembly kernel) ran at ~2 ms per row per thread: 8 threads gave ~2.0K rows/s,
   * too close to the GPU's ~1.9K frames/s; 14 gave ~2.4K.
   */
  threads?: number;
  /** Fewer rows than this per thread are not worth a message: they run on fewer threads, at least one (default 16). */
  minRowsPerThread?: number;
}

const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const makeMlpForward = ${makeMlpForward.toString()};
const forward = makeMlpForward(workerData.parts, workerData.hiddenWasm);
// One call before the first request, while the caller still loads its models: a thread's first call was its slowest
// by far (makeMlpForward says how much).
forward(new Float32Array(workerData.parts.inputDim * 16), 16);
parentPort.on('message', ({ id, features, rows }) => {
  const out = forward(features, rows);
  parentPort.postMessage({ id, out }, [out.buffer]);
});
`;

/**
 * The threads cannot classify any more: one of them died (an uncaught error, or it exited) or the MLP was closed.
 * Its rows in flight and every later `predict` reject with it; the thread is not replaced, so a caller that wants to
 * go on starts a new ThreadedMlp.
 */
export class MlpThreadError extends Error {
  override readonly name = 'MlpThreadError';
}

/** One slice of rows on a thread, waiting for its probabilities. */
interface Request {
  thread: number;
  resolve(out: Float32Array): void;
  reject(err: Error): void;
}

export class ThreadedMlp {
  readonly inputDim: number;
  private readonly workers: Worker[];
  private readonly pending = new Map<number, Request>();
  private nextId = 0;
  /** Requests in flight per thread. */
  private readonly busy: number[];
  /**
   * Why the threads can no longer be used, once one died or close() was called: a dead thread stays dead (a request
   * posted to it would never be answered), so every later prediction rejects with this at once.
   */
  private stopped: MlpThreadError | null = null;

  private constructor(private readonly mlp: MlpClassifier, threads: number, private readonly minRowsPerThread: number) {
    const parts = sharedParts(mlp.parts);
    const hiddenWasm = mlpHiddenWasm();
    this.inputDim = parts.inputDim;
    this.busy = new Array<number>(threads).fill(0);
    this.workers = Array.from({ length: threads }, (_, index) => {
      // execArgv: [] — the source is CommonJS; a parent started with e.g. --input-type=module must not change that.
      const worker = new Worker(workerSource, { eval: true, workerData: { parts, hiddenWasm }, execArgv: [] });
      worker.on('message', ({ id, out }: { id: number; out: Float32Array }) => {
        this.pending.get(id)?.resolve(out);
        this.pending.delete(id);
        if (--this.busy[index] === 0) worker.unref();
      });
      // An uncaught error ends the thread ('error', then 'exit'); so do process.exit() in it and terminate().
      worker.on('error', (err) => this.threadDied(index, `failed: ${err.message}`, err));
      worker.on('exit', (code) => this.threadDied(index, `exited with code ${code}`));
      // Idle threads must not keep the process alive; busy ones must (someone awaits their rows).
      worker.unref();
      return worker;
    });
  }

  static start(mlp: MlpClassifier, options: ThreadedMlpOptions = {}): ThreadedMlp {
    const threads = options.threads ?? Math.min(16, Math.max(1, availableParallelism() - 2));
    return new ThreadedMlp(mlp, threads, options.minRowsPerThread ?? 16);
  }

  get threads(): number {
    return this.workers.length;
  }

  /** Same contract and bytes as MlpClassifier.predict, computed on the threads. Rejects with MlpThreadError once stopped. */
  async predict(features: Float32Array, rows = features.length / this.inputDim): Promise<Float32Array> {
    if (this.stopped) throw this.stopped;
    checkRows(features, rows, this.inputDim);
    // Never on the calling thread while there are threads: in a GPU worker that thread launches the next batch.
    if (this.workers.length === 0) return this.mlp.predict(features, rows);
    const used = Math.max(1, Math.min(this.workers.length, Math.floor(rows / this.minRowsPerThread)));
    const per = Math.ceil(rows / used);
    const parts: Promise<Float32Array>[] = [];
    for (let t = 0, start = 0; start < rows; t++, start += per) {
      const count = Math.min(per, rows - start);
      // A copy of the slice: transferred, so the caller's buffer stays usable.
      const slice = features.slice(start * this.inputDim, (start + count) * this.inputDim);
      parts.push(this.run(t, slice, count));
    }
    const out = new Float32Array(rows * 2);
    let offset = 0;
    for (const part of await Promise.all(parts)) {
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }

  /** Stops the threads; predictions still in flight reject (MlpThreadError), as do later ones. */
  async close(): Promise<void> {
    this.stopped ??= new MlpThreadError('the threaded MLP is closed');
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.rejectPending(() => true);
  }

  private run(index: number, features: Float32Array, rows: number): Promise<Float32Array> {
    const id = this.nextId++;
    const worker = this.workers[index];
    if (this.busy[index]++ === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { thread: index, resolve, reject });
      worker.postMessage({ id, features, rows }, [features.buffer as ArrayBuffer]);
    });
  }

  /** Rejects the dead thread's requests and stops the MLP: the requests that others answer still resolve. */
  private threadDied(index: number, how: string, cause?: Error): void {
    this.stopped ??= new MlpThreadError(`MLP worker thread ${index} ${how}; the threaded MLP is stopped`, cause ? { cause } : undefined);
    this.rejectPending((request) => request.thread === index);
  }

  private rejectPending(which: (request: Request) => boolean): void {
    for (const [id, request] of this.pending) {
      if (!which(request)) continue;
      this.pending.delete(id);
      request.reject(this.stopped!);
    }
  }
}

/**
 * The weights in shared memory: each thread copies the one copy into its module's memory instead of receiving a
 * clone of its own, made on the starting thread (the first layer is 6.8 MB). 15 threads on the 2-core box: started in
 * 42–55 ms instead of 226–260 ms, the process 297 MB larger instead of 427 MB (2026-11-28).
 */
function sharedParts(parts: MlpParts): MlpParts {
  const shared = <T extends Float32Array | Float64Array>(values: T): T => {
    const copy = new (values.constructor as new (buffer: SharedArrayBuffer) => T)(new SharedArrayBuffer(values.byteLength));
    copy.set(values);
    return copy;
  };
  return { ...parts, w1: shared(parts.w1), scale: shared(parts.scale), shift: shared(parts.shift), w2: shared(parts.w2), b2: shared(parts.b2) };
}
