#!/usr/bin/env node
// Runtime memory bench: streams N short generated sequences (made lazily by an async generator,
// never held in an array) through `runEmbedding` on a pool of CPU worker processes running a cheap
// model plugin, and records the parent's RSS (process.memoryUsage().rss every 100 ms, plus the
// kernel's peak from process.resourceUsage().maxRSS), the workers' RSS, and how far the reader got
// ahead of the consumer. Uses the built runtime (packages/runtime/dist).
//
// One measurement (prints one JSON object):
//   node tools/bench/runtime/memory.mjs --size 1000000 [--workers 2] [--model cheap|hash] [--dim 64]
//     [--token-budget 4096] [--window 2000] [--consumer-us 0]
// Several sizes side by side (each measurement in a fresh process; sizes interleaved per round;
// prints a JSON summary with medians and ratios to the smallest size):
//   node tools/bench/runtime/memory.mjs --sizes 100000,300000,1000000 --repeats 3 [same options]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = fileURLToPath(new URL('.', import.meta.url));
const { values: args } = parseArgs({
  options: {
    size: { type: 'string' },
    sizes: { type: 'string' },
    repeats: { type: 'string', default: '1' },
    workers: { type: 'string', default: '2' },
    model: { type: 'string', default: 'cheap' },
    dim: { type: 'string', default: '64' },
    'token-budget': { type: 'string', default: '4096' },
    window: { type: 'string', default: '2000' },
    'in-flight': { type: 'string', default: '2' },
    'consumer-us': { type: 'string', default: '0' },
    'sample-ms': { type: 'string', default: '100' },
    /** Run each measurement with --expose-gc and record the live heap (after a full GC) at each tenth. */
    gc: { type: 'boolean', default: false },
    /** Runtime package folder (with dist/ and worker/); default packages/runtime. */
    runtime: { type: 'string' },
    /** Driver: compare runtime builds side by side, e.g. before=/tmp/rt-before,after=packages/runtime. */
    runtimes: { type: 'string' },
  },
});

const MB = 1024 * 1024;
const mb = (bytes) => +(bytes / MB).toFixed(1);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

if (args.sizes) await driver();
else if (args.size) await measure(Number(args.size));
else {
  console.error('give --size N or --sizes A,B,C');
  process.exit(2);
}

/** Runs each size in its own process, `repeats` rounds, sizes rotated each round. */
async function driver() {
  const sizes = args.sizes.split(',').map(Number);
  const repeats = Number(args.repeats);
  const passOn = ['workers', 'model', 'dim', 'token-budget', 'window', 'in-flight', 'consumer-us', 'sample-ms'].flatMap((k) => [`--${k}`, args[k]]);
  const variants = (args.runtimes ?? `current=${args.runtime ?? ''}`).split(',').map((v) => {
    const [label, dir] = v.split('=');
    return { label, dir };
  });
  const key = (variant, size) => `${variant.label}:${size}`;
  const runs = new Map(variants.flatMap((v) => sizes.map((s) => [key(v, s), []])));
  for (let round = 0; round < repeats; round++) {
    const order = sizes.map((_, i) => sizes[(i + round) % sizes.length]);
    for (const size of order) {
      for (const variant of round % 2 ? [...variants].reverse() : variants) {
        const argv = [...(args.gc ? ['--expose-gc'] : []), fileURLToPath(import.meta.url), '--size', String(size), ...passOn];
        if (variant.dir) argv.push('--runtime', variant.dir);
        const result = await child(argv);
        runs.get(key(variant, size)).push(result);
        console.error(
          `round ${round + 1}/${repeats} ${variant.label} size ${size}: peak rss ${result.parent.peakRssMB} MB (maxRSS ${result.parent.maxRssMB} MB), ` +
            `live heap ${result.parent.liveHeapTimelineMB.join('→') || '-'} MB, max read-ahead ${result.readAhead.maxAheadOfConsumer}, ${result.itemsPerSecond} items/s`,
        );
      }
    }
  }
  const table = variants.flatMap((variant) => {
    const base = runs.get(key(variant, sizes[0]));
    const basePeak = median(base.map((r) => r.parent.peakRssMB));
    const baseMax = median(base.map((r) => r.parent.maxRssMB));
    return sizes.map((size) => {
      const rs = runs.get(key(variant, size));
      const peak = median(rs.map((r) => r.parent.peakRssMB));
      const maxRss = median(rs.map((r) => r.parent.maxRssMB));
      const live = rs.map((r) => r.parent.liveHeapTimelineMB);
      return {
        runtime: variant.label,
        size,
        runs: rs.length,
        parentBaselineRssMB: median(rs.map((r) => r.parent.baselineRssMB)),
        parentPeakRssMB: peak,
        parentPeakRssMBAll: rs.map((r) => r.parent.peakRssMB),
        parentMaxRssMB: maxRss,
        parentPeakHeapUsedMB: median(rs.map((r) => r.parent.peakHeapUsedMB)),
        liveHeapFirstMB: live[0]?.length ? median(live.map((l) => l[0])) : null,
        liveHeapLastMB: live[0]?.length ? median(live.map((l) => l.at(-1))) : null,
        workerPeakRssMB: median(rs.map((r) => Math.max(...r.workers.peakRssMB))),
        maxAheadOfConsumer: Math.max(...rs.map((r) => r.readAhead.maxAheadOfConsumer)),
        maxOutstanding: Math.max(...rs.map((r) => r.readAhead.maxOutstanding)),
        bound: Math.max(...rs.map((r) => r.readAhead.bound)),
        itemsPerSecond: median(rs.map((r) => r.itemsPerSecond)),
        seconds: median(rs.map((r) => r.seconds)),
        peakRatioToSmallest: +(peak / basePeak).toFixed(3),
        maxRssRatioToSmallest: +(maxRss / baseMax).toFixed(3),
      };
    });
  });
  const first = runs.values().next().value[0];
  console.log(JSON.stringify({ settings: first.settings, machine: first.machine, table, runs: Object.fromEntries(runs) }, null, 1));
}

function child(argv) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited with ${code}`))));
  });
}

/** Deterministic protein-like strings of 60–140 residues (a 300-bp read's frames are ~100 aa). */
async function* generate(count, counter) {
  const alphabet = 'ACDEFGHIKLMNPQRSTVWY';
  let state = 12345;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  for (let i = 0; i < count; i++) {
    const length = 60 + (next() % 81);
    let s = '';
    for (let k = 0; k < length; k++) s += alphabet[(next() >>> 16) % 20];
    counter.read++;
    yield s;
  }
}

function vmRssBytes(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

async function measure(size) {
  const runtimeDir = resolve(args.runtime || fileURLToPath(new URL('../../../packages/runtime', import.meta.url)));
  const { cpuWorkerDevices, runEmbedding, startPool } = await import(pathToFileURL(join(runtimeDir, 'dist', 'index.js')).href);
  const workers = Number(args.workers);
  const dim = Number(args.dim);
  const tokenBudget = Number(args['token-budget']);
  const window = Number(args.window);
  const k = Number(args['in-flight']);
  const consumerUs = Number(args['consumer-us']);
  const model =
    args.model === 'hash'
      ? { module: fileURLToPath(new URL('../../../packages/runtime/test/fixtures/hash-model.mjs', import.meta.url)), export: 'createHashModel', options: { dim } }
      : { module: `${here}cheap-model.mjs`, export: 'createCheapModel', options: { dim } };

  const pool = await startPool({ model, devices: cpuWorkerDevices(workers), inFlightPerWorker: k });
  let maxBatchItems = 0;
  pool.events$.subscribe((e) => {
    if (e.type === 'batch') maxBatchItems = Math.max(maxBatchItems, e.items);
  });
  const pids = pool.pids();
  const baseline = process.memoryUsage();
  const peak = { rss: baseline.rss, heapUsed: baseline.heapUsed, external: baseline.external, arrayBuffers: baseline.arrayBuffers };
  const workerPeak = pids.map((pid) => vmRssBytes(pid));
  const counter = { read: 0 };
  let delivered = 0;
  let samples = 0;
  const timeline = []; // rss after each tenth of the input
  const liveHeap = []; // heapUsed after a full GC at each tenth (with --expose-gc)
  const sample = () => {
    const m = process.memoryUsage();
    samples++;
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
    peak.external = Math.max(peak.external, m.external);
    peak.arrayBuffers = Math.max(peak.arrayBuffers, m.arrayBuffers);
    pids.forEach((pid, i) => (workerPeak[i] = Math.max(workerPeak[i], vmRssBytes(pid))));
  };
  const sampler = setInterval(sample, Number(args['sample-ms']));

  const run = runEmbedding({ items: generate(size, counter), pack: { tokenBudget, window, tokenCount: (s) => s.length + 2 }, pool });
  let maxAhead = 0;
  let checksum = 0;
  const started = performance.now();
  for await (const result of run) {
    if (result.index !== delivered) throw new Error(`out of order: got ${result.index}, expected ${delivered}`);
    delivered++;
    checksum += result.vector[0];
    maxAhead = Math.max(maxAhead, counter.read - delivered);
    if (consumerUs > 0) {
      const until = performance.now() + consumerUs / 1000;
      while (performance.now() < until);
    }
    if (delivered % (size / 10) === 0) {
      timeline.push(mb(process.memoryUsage().rss));
      if (globalThis.gc) {
        globalThis.gc();
        liveHeap.push(mb(process.memoryUsage().heapUsed));
      }
    }
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  sample();
  const stats = { ...run.stats };
  await pool.close();
  if (delivered !== size || stats.read !== size) throw new Error(`delivered ${delivered}, read ${stats.read}, expected ${size}`);

  console.log(
    JSON.stringify({
      settings: { runtime: runtimeDir, size, workers, inFlightPerWorker: k, model: args.model, dim, tokenBudget, window, consumerUs, sampleMs: Number(args['sample-ms']) },
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, totalMemGB: +(totalmem() / 2 ** 30).toFixed(1), node: process.version },
      seconds: +seconds.toFixed(2),
      itemsPerSecond: Math.round(size / seconds),
      samples,
      parent: {
        baselineRssMB: mb(baseline.rss),
        peakRssMB: mb(peak.rss),
        peakOverBaselineMB: mb(peak.rss - baseline.rss),
        maxRssMB: +(process.resourceUsage().maxRSS / 1024).toFixed(1),
        peakHeapUsedMB: mb(peak.heapUsed),
        peakExternalMB: mb(peak.external),
        peakArrayBuffersMB: mb(peak.arrayBuffers),
        rssTimelineMB: timeline,
        liveHeapTimelineMB: liveHeap,
      },
      workers: { peakRssMB: workerPeak.map(mb) },
      readAhead: {
        /** read − delivered, measured by the consumer (items the parent holds for it). */
        maxAheadOfConsumer: maxAhead,
        /** runEmbedding's own read − embedded. */
        maxOutstanding: stats.maxOutstanding,
        maxBatchItems,
        /** window + K·workers·largest batch (the bound the runtime documents for maxOutstanding). */
        bound: window + k * workers * maxBatchItems,
      },
      checksum,
    }),
  );
}
