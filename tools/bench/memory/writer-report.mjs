#!/usr/bin/env node
// Main-process memory of what `virnucpro predict` does with its results (issue 46, "flat memory"): the
// PredictionWriter fed synthetic reads of 150 bp (one chunk each, 1–6 frames with random scores, rows as
// writeBatch calls, records declared with their layout as predict does) until F frames, its commit (the consensus
// csv), then writeReport on the finished folder. No model runs: this is the part of the main process that grows
// with the number of records and frames. Uses the built packages (npm run build).
//
// One measurement (prints one JSON object): peak RSS (sampled every 20 ms, and the kernel's maxRSS), peak
// heapUsed, the live heap (after a full GC) at each tenth of the writing, after commit and after the report, and
// seconds per phase:
//   node --expose-gc tools/bench/memory/writer-report.mjs --frames 100000 [--consensus DIR] [--dir WORK_DIR]
// Several sizes (each in a fresh process, sizes and builds interleaved per round; medians):
//   node tools/bench/memory/writer-report.mjs --sizes 100000,2000000 --repeats 3 [--builds before=DIR,after=packages/consensus]
// DIR is a consensus package folder with dist/ (default packages/consensus), e.g. an older commit's, built apart.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = resolve(here, '../../..');
const { values: args } = parseArgs({
  options: {
    frames: { type: 'string' },
    sizes: { type: 'string' },
    repeats: { type: 'string', default: '1' },
    consensus: { type: 'string', default: join(repo, 'packages/consensus') },
    builds: { type: 'string' },
    dir: { type: 'string' },
  },
});

const MB = 1024 * 1024;
const mb = (bytes) => +(bytes / MB).toFixed(1);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

if (args.sizes) await driver();
else if (args.frames) await measure(Number(args.frames));
else {
  console.error('give --frames N or --sizes A,B');
  process.exit(2);
}

async function measure(frameTarget) {
  if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
  const { PredictionWriter, writeReport } = await import(pathToFileURL(join(resolve(args.consensus), 'dist/index.js')).href);
  const work = args.dir ?? mkdtempSync(join(tmpdir(), 'vnp-memory-'));
  const out = join(work, 'run');
  const peak = { rss: 0, heapUsed: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
  };
  const timer = setInterval(sample, 20);
  const live = () => {
    globalThis.gc();
    return mb(process.memoryUsage().heapUsed);
  };
  const liveWhileWriting = [];
  const seconds = {};
  const FRAME_NAMES = ['F1', 'F2', 'F3', 'R1', 'R2', 'R3'];
  let state = 42;
  const rand = () => (state = (state * 48271) % 2147483647) / 2147483647;

  let t0 = performance.now();
  const writer = await PredictionWriter.create(out, { chunkFiles: true });
  let frames = 0;
  let reads = 0;
  let nextTenth = frameTarget / 10;
  while (frames < frameTarget) {
    const id = `read_${++reads}`;
    writer.declareRecord(id, [{ start: 0, end: 150 }]);
    const ids = [];
    const probabilities = [];
    for (let f = 0, n = 1 + Math.floor(rand() * 6); f < n && frames < frameTarget; f++, frames++) {
      const p = Math.fround(rand());
      ids.push(`${id}_chunk_1${FRAME_NAMES[f]}`);
      probabilities.push(Math.fround(1 - p), p);
    }
    await writer.writeBatch(ids, probabilities);
    if (frames >= nextTenth) {
      liveWhileWriting.push(live());
      nextTenth += frameTarget / 10;
    }
  }
  seconds.write = (performance.now() - t0) / 1000;
  t0 = performance.now();
  await writer.commit();
  seconds.commit = (performance.now() - t0) / 1000;
  const liveAfterCommit = live();
  writeFileSync(join(out, 'run_summary.json'), JSON.stringify({ status: 'complete', sequences: reads, chunks: reads, frames }) + '\n');
  t0 = performance.now();
  await writeReport(out);
  seconds.report = (performance.now() - t0) / 1000;
  const liveAfterReport = live();
  clearInterval(timer);
  sample();
  if (!args.dir) rmSync(work, { recursive: true, force: true });
  console.log(
    JSON.stringify({
      consensus: args.consensus,
      frames,
      reads,
      peakRssMB: mb(peak.rss),
      maxRssMB: mb(process.resourceUsage().maxRSS * 1024),
      peakHeapUsedMB: mb(peak.heapUsed),
      liveHeapWhileWritingMB: liveWhileWriting,
      liveHeapAfterCommitMB: liveAfterCommit,
      liveHeapAfterReportMB: liveAfterReport,
      seconds: Object.fromEntries(Object.entries(seconds).map(([k, v]) => [k, +v.toFixed(2)])),
    }),
  );
}

/** Runs each size (and build) in its own process, `repeats` rounds, the order rotated each round. */
async function driver() {
  const sizes = args.sizes.split(',').map(Number);
  const builds = args.builds ? args.builds.split(',').map((b) => b.split('=')) : [['current', args.consensus]];
  const runs = sizes.flatMap((size) => builds.map(([name, dir]) => ({ size, name, dir })));
  const results = new Map(runs.map((r) => [`${r.name} ${r.size}`, []]));
  for (let round = 0; round < Number(args.repeats); round++) {
    const order = runs.map((_, i) => runs[(i + round) % runs.length]);
    for (const run of order) {
      const result = await child(run.size, run.dir);
      console.log(JSON.stringify({ build: run.name, ...result }));
      results.get(`${run.name} ${run.size}`).push(result);
    }
  }
  const summary = [...results].map(([key, rs]) => ({
    run: key,
    peakRssMB: median(rs.map((r) => r.maxRssMB)),
    peakHeapUsedMB: median(rs.map((r) => r.peakHeapUsedMB)),
    maxLiveHeapMB: median(rs.map((r) => Math.max(...r.liveHeapWhileWritingMB, r.liveHeapAfterCommitMB, r.liveHeapAfterReportMB))),
    seconds: +median(rs.map((r) => r.seconds.write + r.seconds.commit + r.seconds.report)).toFixed(2),
  }));
  console.log(JSON.stringify({ summary }, null, 1));
}

function child(frames, consensus) {
  return new Promise((resolveChild, reject) => {
    const p = spawn(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--frames', String(frames), '--consensus', consensus], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    p.stdout.on('data', (d) => (text += d));
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolveChild(JSON.parse(text)) : reject(new Error(`measurement of ${frames} frames exited ${code}`))));
  });
}
