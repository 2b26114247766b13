// Worker entry: loads one model plugin and embeds the batches the pool sends, in arrival order, one at a time
// or, when the model says it gains from it (`concurrentBatches`, e.g. 2 on a GPU), that many at once: the next
// batch's tokenizing and kernel launches then happen while the GPU still runs the previous one. It runs as a child
// process (IPC channel) or as a thread of the pool's process (the in-process mode: parentPort); the protocol is the
// same. Plain JavaScript on purpose: it must run straight from the source tree (tests) as well as from an installed
// package, without a compile step.
// Protocol: see ../src/protocol.ts.
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort } from 'node:worker_threads';
import { serializeError } from './serialize-error.mjs';

// `transfer`: buffers handed over rather than copied — a thread's batch of vectors (5 MB for 1,800 DNABERT-S means)
// then reaches the pool's thread without a copy there; a process's IPC serialises them either way.
const send = parentPort
  ? (message, transfer = []) => parentPort.postMessage(message, transfer)
  : (message) => {
      if (process.connected) process.send(message);
    };

// The parent owns our lifetime: when its IPC channel closes (parent exited or was killed),
// stop at once instead of lingering as an orphan holding a GPU. (A thread ends with its process.)
if (!parentPort) process.on('disconnect', () => process.exit(0));

let model = null;
const queue = [];
/** Batches inside model.embed() now. */
let running = 0;
/** The model's counters() as last reported to the parent. */
let reported = {};

function countersNow() {
  return typeof model?.counters === 'function' ? { ...model.counters() } : {};
}

/** How much each counter grew since the last report: { counters } to spread into a message, or {}. */
function counterGrowth() {
  if (typeof model?.counters !== 'function') return {};
  const now = countersNow();
  const counters = {};
  for (const [name, value] of Object.entries(now)) counters[name] = value - (reported[name] ?? 0);
  reported = now;
  return { counters };
}

function moduleUrl(spec) {
  if (isAbsolute(spec)) return pathToFileURL(spec).href;
  return spec; // package name or URL
}

/** The plugin's `prepare` begun (not awaited: it runs while the model's code loads); its failures are the factory's to meet. */
async function prepare(spec, ctx) {
  try {
    const mod = await import(moduleUrl(spec.module));
    Promise.resolve(mod[spec.export]?.(ctx)).catch(() => {});
  } catch {
    // nothing prepared: the factory starts everything itself
  }
}

async function init(message) {
  const { spec, device, compute, workerIndex, heartbeatIntervalMs } = message;
  // Heartbeats come from the event loop: if a batch blocks it (or hangs), they stop and the pool
  // restarts us after its heartbeat timeout.
  setInterval(() => send({ type: 'heartbeat' }), heartbeatIntervalMs).unref();
  const ctx = { device, ...(compute === undefined ? {} : { compute }), workerIndex };
  if (spec.prepare) await prepare(spec.prepare, ctx);
  try {
    const mod = await import(moduleUrl(spec.module));
    const factory = mod[spec.export];
    if (typeof factory !== 'function') {
      throw new Error(`model plugin '${spec.module}' has no exported function '${spec.export}'`);
    }
    model = await factory(spec.options, ctx);
    if (!model || !Number.isInteger(model.dim) || model.dim <= 0 || typeof model.embed !== 'function') {
      throw new Error(`model plugin '${spec.module}#${spec.export}' returned no valid model (needs dim and embed)`);
    }
    reported = countersNow();
    const info = typeof model.describe === 'function' ? model.describe() : undefined;
    send({
      type: 'ready',
      dim: model.dim,
      concurrentBatches: Math.max(1, Math.floor(model.concurrentBatches ?? 1)),
      pid: process.pid,
      // The device-selection variables this worker was started with (the pool's DeviceInfo.env), as it sees them.
      env: Object.fromEntries(Object.keys(device?.env ?? {}).map((name) => [name, process.env[name]])),
      ...(info ? { info } : {}),
    });
  } catch (error) {
    send({ type: 'init-error', error: serializeError(error) });
    setTimeout(() => process.exit(1), 50);
  }
}

function drain() {
  const limit = Math.max(1, Math.floor(model?.concurrentBatches ?? 1));
  while (running < limit && queue.length > 0) {
    running++;
    void embedOne(queue.shift()).finally(() => {
      running--;
      drain();
    });
  }
}

async function embedOne({ batchId, items }) {
  send({ type: 'started', batchId });
  const started = performance.now();
  try {
    const vectors = await model.embed(items);
    if (!Array.isArray(vectors) || vectors.length !== items.length) {
      throw new Error(`embed() returned ${vectors?.length} vectors for ${items.length} items`);
    }
    const flat = new Float32Array(items.length * model.dim);
    vectors.forEach((vector, row) => {
      if (vector.length !== model.dim) throw new Error(`embed() returned a vector of length ${vector.length}, expected ${model.dim}`);
      flat.set(vector, row * model.dim);
    });
    send({ type: 'result', batchId, vectors: flat, seconds: (performance.now() - started) / 1000, ...counterGrowth() }, [flat.buffer]);
  } catch (error) {
    send({ type: 'failed', batchId, error: serializeError(error), ...counterGrowth() });
  }
}

// In a thread, process.exit() ends only the thread.
(parentPort ?? process).on('message', (message) => {
  switch (message.type) {
    case 'init':
      void init(message);
      break;
    case 'embed':
      queue.push(message);
      drain();
      break;
    case 'shutdown':
      try {
        // A process's exit frees everything it holds at once (a GPU's memory with its context): the model's
        // dispose, tensor by tensor, would only delay it. A thread shares its process's memory, so it disposes.
        if (parentPort) model?.dispose?.();
      } finally {
        process.exit(0);
      }
      break;
  }
});
