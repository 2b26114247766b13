#!/usr/bin/env node
// The host pipeline alone: `virnucpro predict` on simulated devices (frames scored at once in K worker processes),
// so that the figure is what the main process sustains — FASTA read, counted and fingerprinted, frames cut and
// translated, packed, sent, checkpointed, ordered and written — and how it grows with the workers, and how the
// main process's peak RSS grows with the input. Each run is a fresh process (host-pipeline.mjs, bundled by
// bundle.sh beside this file); 150-bp reads from phage lambda and 30 kb of E. coli (tools/bench/predict/make_reads.py).
//   node .bundle-host/b/bench-host-pipeline.mjs --frames 200000 --workers 1,2,4,8 [--repeats 2] [--models test-data/demo-models]
//     [--save-embeddings fp32|fp16] (the simulated workers then send 3,328 features a frame, as with predict --save-embeddings)
// Prints one JSON line per run and a summary (median frames/s per worker count, peak RSS per input size).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    frames: { type: 'string', default: '200000' },
    workers: { type: 'string', default: '1,2,4' },
    repeats: { type: 'string', default: '1' },
    models: { type: 'string', default: 'test-data/demo-models' },
    genomes: { type: 'string', default: 'test-data/lambda_virus.fa,test-data/ecoli536_1-30000.fa' },
    'save-embeddings': { type: 'string' },
  },
});
const entry = fileURLToPath(new URL('./host-pipeline.mjs', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'host-pipeline-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

const runs = [];
for (const frames of args.frames.split(',').map(Number)) {
  const reads = join(tmpdir(), `host-pipeline-reads-${frames}.fa`);
  if (!existsSync(reads)) execFileSync('python3', ['tools/bench/predict/make_reads.py', '--frames', String(frames), '--out', reads, ...args.genomes.split(',')], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (let repeat = 0; repeat < Number(args.repeats); repeat++) {
    for (const workers of args.workers.split(',').map(Number)) {
      const out = join(work, `out-${frames}-${workers}`);
      const r = spawnSync(process.execPath, [entry, reads, out, String(workers), args.models, '300', ...(args['save-embeddings'] ? [args['save-embeddings']] : [])], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`run with ${workers} workers failed (${r.status}):\n${r.stderr}`);
      const run = JSON.parse(r.stdout.trim().split('\n').at(-1));
      runs.push(run);
      console.log(JSON.stringify(run));
      rmSync(out, { recursive: true, force: true });
    }
  }
}
rmSync(work, { recursive: true, force: true });
const summary = { cores: cpus().length, cpu: cpus()[0]?.model, byWorkers: {}, byFrames: {} };
for (const w of new Set(runs.map((r) => r.workers))) summary.byWorkers[w] = median(runs.filter((r) => r.workers === w).map((r) => r.framesPerSecond));
for (const f of new Set(runs.map((r) => r.frames))) summary.byFrames[f] = { maxRssMB: median(runs.filter((r) => r.frames === f).map((r) => r.maxRssMB)) };
console.log(JSON.stringify({ summary }));
