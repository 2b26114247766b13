import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { CPU_KERNELS_WASM_BASE64 } from './wasm/cpu-kernels-wasm.js';

/**
 * Each helper thread: its own instance of the kernels' WebAssembly module, waiting on a shared generation counter.
 * Woken, it takes its job from its port (synchronously), copies its rows of the input into its own memory, runs
 * the kernel there and copies the result rows out, then counts itself done. A source string rather than a file,
 * so a bundled build (one .js file) carries it.
 */
const HELPER_SOURCE = `
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const { control, port, wasmBase64 } = workerData;
const instance = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(wasmBase64, 'base64')), { env: { abort() { throw new Error('cpu-kernels: abort'); } } });
const { memory, geglu } = instance.exports;
const BASE = 65536;
let generation = 0;
for (;;) {
  Atomics.wait(control, 0, generation);
  generation = Atomics.load(control, 0);
  let job;
  while (!(job = receiveMessageOnPort(port))) {}
  const { x, out, from, to, f } = job.message;
  try {
    const rows = to - from;
    if (rows > 0) {
      const xAt = BASE, outAt = BASE + Math.ceil(rows * 2 * f * 4 / 64) * 64;
      const missing = Math.ceil((outAt + rows * f * 4) / 65536) - memory.buffer.byteLength / 65536;
      if (missing > 0) memory.grow(missing);
      new Float32Array(memory.buffer, xAt, rows * 2 * f).set(x.subarray(from * 2 * f, to * 2 * f));
      geglu(xAt, outAt, rows, f);
      out.set(new Float32Array(memory.buffer, outAt, rows * f), from * f);
    }
  } catch (error) {
    Atomics.store(control, 2, 1);
  }
  Atomics.add(control, 1, 1);
  Atomics.notify(control, 1);
}
`;

/**
 * Helper threads for the element-wise kernels, so that they run on as many cores as the GEMMs. A kernel's rows are
 * split into contiguous ranges, one per thread (the calling thread takes the last); every row is computed by the
 * same WebAssembly code from its own values alone, so the bytes do not depend on the split or the thread count.
 * Inputs and outputs live on SharedArrayBuffers (the producing kernels allocate them so). The calling thread
 * blocks until all ranges are done (kernels are synchronous); idle helpers sleep in Atomics.wait and do not keep
 * the process alive.
 */
/** How long the calling thread waits for a helper that makes no progress before failing the kernel. */
const STALL_MS = 60_000;

export class RowWorkers {
  /** [generation, helpers done, a helper failed]. */
  private readonly control = new Int32Array(new SharedArrayBuffer(12));
  private readonly ports: MessagePort[] = [];
  private readonly threads: Worker[] = [];

  constructor(readonly helpers: number) {
    for (let i = 0; i < helpers; i++) {
      const { port1, port2 } = new MessageChannel();
      const worker = new Worker(HELPER_SOURCE, {
        eval: true, workerData: { control: this.control, port: port2, wasmBase64: CPU_KERNELS_WASM_BASE64 }, transferList: [port2],
      });
      worker.unref();
      port1.unref();
      this.threads.push(worker);
      this.ports.push(port1);
    }
  }

  /** Ends the helper threads (a backend's dispose). */
  terminate(): void {
    for (const worker of this.threads) void worker.terminate();
  }

  /**
   * out = geglu(x) for x [rows×2f] and out [rows×f] on SharedArrayBuffers; `here(from, to)` runs the calling
   * thread's range with its own kernels.
   */
  geglu(x: Float32Array, out: Float32Array, rows: number, f: number, here: (from: number, to: number) => void): void {
    const share = Math.ceil(rows / (this.helpers + 1));
    Atomics.store(this.control, 1, 0);
    Atomics.store(this.control, 2, 0);
    const jobs = this.helpers; // every helper gets a message, an empty range included: it wakes on each generation
    for (let i = 0; i < jobs; i++) {
      const from = Math.min(i * share, rows), to = Math.min(from + share, rows);
      this.ports[i].postMessage({ x, out, from, to, f });
    }
    Atomics.add(this.control, 0, 1);
    Atomics.notify(this.control, 0);
    const mine = Math.min(this.helpers * share, rows);
    if (mine < rows) here(mine, rows);
    // A helper that died outright (not an error it caught) would never count itself done: give up after a minute
    // without progress rather than hang the run (a range of rows takes milliseconds).
    for (let done = Atomics.load(this.control, 1); done < jobs; done = Atomics.load(this.control, 1)) {
      if (Atomics.wait(this.control, 1, done, STALL_MS) === 'timed-out' && Atomics.load(this.control, 1) === done) {
        throw new Error(`onednn: a helper thread stopped responding in geglu (${jobs - done} of ${jobs} row ranges unfinished after ${STALL_MS / 1000} s)`);
      }
    }
    if (Atomics.load(this.control, 2)) throw new Error('onednn: a helper thread failed in geglu');
  }
}
