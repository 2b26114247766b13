import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { koffiModulePath } from './koffi.js';
import { OPENMP_LIBRARIES, SGEMM_PROTOTYPE } from './onednn-library.js';
import { ROW_JOBS_SOURCE, type RowJob, type RowJobName } from './row-jobs.js';
import { CPU_KERNELS_WASM_BASE64 } from './wasm/cpu-kernels-wasm.js';

/**
 * Each helper thread: its own instance of the kernels' WebAssembly module, oneDNN's sgemm through its own koffi
 * binding (on this thread alone: OpenMP's thread count is a per-thread setting, and the GEMMs of a helper are one
 * range among several running at once), and the jobs of row-jobs.ts from their source text. It waits on a shared
 * generation counter; woken, it takes its job from its port (synchronously), runs it, then counts itself done. A
 * source string rather than a file, so a bundled build (one .js file) carries it.
 */
const HELPER_SOURCE = `
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const { control, port, wasmBase64, koffiPath, onednnPath, openmpLibraries, sgemmPrototype } = workerData;
const koffi = require(koffiPath);
const instance = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(wasmBase64, 'base64')), { env: { abort() { throw new Error('cpu-kernels: abort'); } } });
for (const name of openmpLibraries) {
  try { koffi.load(name).func('void omp_set_num_threads(int n)')(1); break; } catch { /* the next */ }
}
const sgemmNative = koffi.load(onednnPath).func(sgemmPrototype);
function sgemm(transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc) {
  const status = sgemmNative(78, transB ? 84 : 78, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  if (status !== 0) throw new Error('oneDNN dnnl_sgemm(' + M + '×' + K + '·' + K + '×' + N + ') failed: status ' + status);
}
${ROW_JOBS_SOURCE}
const lane = makeLane(instance.exports, (buffer) => Number(koffi.address(new Uint8Array(buffer))), sgemm);
let generation = 0;
for (;;) {
  Atomics.wait(control, 0, generation);
  generation = Atomics.load(control, 0);
  let message;
  while (!(message = receiveMessageOnPort(port))) {}
  const { name, job } = message.message;
  try {
    if (job) jobs[name](lane, job);
  } catch (error) {
    Atomics.store(control, 2, 1);
    port.postMessage(String(error && error.stack || error));
  }
  Atomics.add(control, 1, 1);
  Atomics.notify(control, 1);
}
`;

/** How long the calling thread waits for a helper that makes no progress before failing the kernel. */
const STALL_MS = 60_000;


/**
 * Helper threads for the kernels between the GEMMs, so that they run on as many cores as the GEMMs. A kernel's
 * rows (or segments) are split into contiguous ranges, one per thread (the calling thread takes the last); every
 * row is computed by the same code from its own values alone, so the bytes do not depend on the split or the
 * thread count. Large inputs and outputs live on SharedArrayBuffers (the kernels allocate them so). The calling
 * thread blocks until all ranges are done (kernels are synchronous); idle helpers sleep in Atomics.wait and do
 * not keep the process alive.
 */
export class RowWorkers {
  /** [generation, helpers done, a helper failed]. */
  private readonly control = new Int32Array(new SharedArrayBuffer(12));
  private readonly ports: MessagePort[] = [];
  private readonly threads: Worker[] = [];

  constructor(readonly helpers: number, onednnPath: string) {
    const workerData = {
      control: this.control, wasmBase64: CPU_KERNELS_WASM_BASE64, koffiPath: koffiModulePath(), onednnPath,
      openmpLibraries: OPENMP_LIBRARIES, sgemmPrototype: SGEMM_PROTOTYPE,
    };
    for (let i = 0; i < helpers; i++) {
      const { port1, port2 } = new MessageChannel();
      const worker = new Worker(HELPER_SOURCE, { eval: true, workerData: { ...workerData, port: port2 }, transferList: [port2] });
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
   * Runs job `name` with `jobs[i]` on helper i (null: nothing for it this time) and `here()` (the calling thread's
   * own range) meanwhile; returns when all are done, throws if one failed.
   */
  run<N extends RowJobName>(name: N, jobs: (RowJob<N> | null)[], here: () => void): void {
    if (jobs.length !== this.helpers) throw new Error(`onednn: ${jobs.length} jobs for ${this.helpers} helper threads`);
    Atomics.store(this.control, 1, 0);
    Atomics.store(this.control, 2, 0);
    // Every helper gets a message, an empty one included: it wakes on each generation.
    jobs.forEach((job, i) => this.ports[i].postMessage({ name, job }));
    Atomics.add(this.control, 0, 1);
    Atomics.notify(this.control, 0);
    let failure: unknown;
    try {
      here();
    } catch (error) {
      failure = error;
    }
    // A helper that died outright (not an error it caught) would never count itself done: give up after a minute
    // without progress rather than hang the run (a range of rows takes milliseconds).
    const count = this.helpers;
    for (let done = Atomics.load(this.control, 1); done < count; done = Atomics.load(this.control, 1)) {
      if (Atomics.wait(this.control, 1, done, STALL_MS) === 'timed-out' && Atomics.load(this.control, 1) === done) {
        throw new Error(`onednn: a helper thread stopped responding in ${name} (${count - done} of ${count} ranges unfinished after ${STALL_MS / 1000} s)`);
      }
    }
    if (failure !== undefined) throw failure;
    if (Atomics.load(this.control, 2)) {
      const reasons = this.ports.map((port) => receiveMessageOnPort(port)?.message).filter(Boolean);
      throw new Error(`onednn: a helper thread failed in ${name}: ${reasons.join('; ')}`);
    }
  }
}
