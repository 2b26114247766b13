// How full predict's batches are, on the frames of real reads, through predict's own pipeline pieces: the records →
// `framesFrom` (chunking + six frames, paced) → `runEmbedding` with predict's packing (`framePacking`, the default
// window for each budget) and its read-ahead, into an embedder that only records each batch (no model). The
// efficiency is run_summary.json's packingEfficiency: Σ ESM-2 tokens in batches / (batches × budget).
// Usage (repo root, after `npm run build`):
//   python3 tools/bench/predict/make_reads.py --frames 150000 --out /tmp/reads.fa test-data/lambda_virus.fa .bench-data/NC_008253.fna.gz
//   node tools/bench/packer/predict-efficiency.mjs /tmp/reads.fa [chunkLength=300] [budget ...]
// Also prints the same run without carry-over (how predict packed before 2026-11-25) for comparison.
import { readFasta } from '@virnucpro/fasta-stream';
import { framePacking, framesFrom, readAheadFor } from '@virnucpro/predict';
import { runEmbedding, serialEmbedder } from '@virnucpro/runtime';

const [path, chunkArg, ...budgetArgs] = process.argv.slice(2);
if (!path) {
  console.error('usage: node tools/bench/packer/predict-efficiency.mjs <reads.fa> [chunkLength=300] [budget ...]');
  process.exit(2);
}
const chunkLength = Number(chunkArg ?? 300);
const budgets = budgetArgs.length ? budgetArgs.map(Number) : [4096, 16384, 32768, 65536];
const pct = (x) => (100 * x).toFixed(2) + ' %';

/** Runs predict's framing and packing over the file; returns each batch's token count, and the largest read-ahead. */
async function batchesOf(pack) {
  const tokens = [];
  const pool = serialEmbedder(async (batch) => {
    tokens.push(batch.items.reduce((sum, item) => sum + item.tokens, 0));
    return batch.items.map(() => new Float32Array(1));
  });
  const run = runEmbedding({ items: framesFrom(readFasta(path), { chunkLength }), pack, maxReadAhead: readAheadFor(pack.window), pool });
  let frames = 0;
  for await (const result of run) frames += result.vector.length;
  return { tokens, frames, maxOutstanding: run.stats.maxOutstanding };
}

const rows = [];
for (const budget of budgets) {
  const pack = framePacking(budget);
  for (const carry of [true, false]) {
    const t0 = performance.now();
    const { tokens, frames, maxOutstanding } = await batchesOf({ ...pack, carry });
    const total = tokens.reduce((s, t) => s + t, 0);
    const fills = tokens.map((t) => t / budget).sort((a, b) => a - b);
    rows.push({
      budget,
      window: pack.window,
      carry,
      frames,
      tokens: total,
      batches: tokens.length,
      'lower bound': Math.ceil(total / budget),
      efficiency: pct(total / (tokens.length * budget)),
      'emptiest batch': pct(fills[0]),
      'second emptiest': pct(fills[1] ?? 1),
      'batches < 90 %': fills.filter((f) => f < 0.9).length,
      'max outstanding': maxOutstanding,
      's': ((performance.now() - t0) / 1000).toFixed(1),
    });
  }
}
console.log(`${path}: frames of ${chunkLength}-bp chunks, predict's packing (framePacking) with and without carry-over`);
console.table(rows);
