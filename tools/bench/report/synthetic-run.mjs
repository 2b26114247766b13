// A finished run folder of any size without running the models: records of random lengths (1 kb – 200 kb,
// log-uniform) cut with VirNucPro's chunk layout, each chunk with 0 stop-free frames half the time (as in real
// genomes) or 1–4, scores from a random "prophage" structure (a few stretches of a record score high), all
// written by the real PredictionWriter, plus a run_summary.json. For the report's tests and benchmark:
//   node tools/bench/report/synthetic-run.mjs OUT_DIR FRAMES [CHUNK_LENGTH] [READ_LENGTH]
// READ_LENGTH makes every record that long instead (reads: 150 bp gives one chunk a record, as predict's benchmark).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PredictionWriter } from '@virnucpro/consensus';
import { chunkLayout } from '@virnucpro/sixframe';

const FRAME_NAMES = ['F1', 'F2', 'F3', 'R1', 'R2', 'R3'];

export async function writeSyntheticRun(outDir, frames, { chunkLength = 500, seed = 42, readLength } = {}) {
  let state = seed;
  const rand = () => (state = (state * 48271) % 2147483647) / 2147483647;
  const writer = await PredictionWriter.create(outDir, { chunkFiles: true });
  let written = 0;
  let sequences = 0;
  let chunks = 0;
  while (written < frames) {
    const id = `contig_${++sequences}`;
    const length = readLength ?? Math.round(Math.exp(Math.log(1000) + rand() * Math.log(200)));
    const layout = chunkLayout(length, chunkLength);
    writer.declareRecord(id, layout);
    chunks += layout.length;
    // A few viral stretches (start, end as chunk indices); half the records have none.
    const stretches = rand() < 0.5 ? [] : Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
      const a = Math.floor(rand() * layout.length);
      return [a, a + Math.floor(rand() * 40)];
    });
    const ids = [];
    const probabilities = [];
    for (let k = 0; k < layout.length && written < frames; k++) {
      if (rand() < 0.5) continue; // no stop-free frame
      const viral = stretches.some(([a, b]) => k >= a && k <= b);
      const n = 1 + Math.floor(rand() * 4);
      for (let f = 0; f < n && written < frames; f++) {
        const p = Math.fround(Math.min(0.9999, Math.max(0.0001, (viral ? 0.75 : 0.3) + (rand() - 0.5) * 0.5)));
        ids.push(`${id}_chunk_${k + 1}${FRAME_NAMES[f]}`);
        probabilities.push(Math.fround(1 - p), p);
        written++;
      }
    }
    if (ids.length > 0) await writer.writeBatch(ids, probabilities);
  }
  await writer.commit();
  const summary = {
    version: 1, tool: 'virnucpro-ts', startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:10:00.000Z', status: 'complete',
    input: `synthetic (${frames} frames)`, chunkLength, regions: { gap: 1, maxGapBases: 5000, minChunks: 2 },
    models: { esm: 'synthetic', dnabert: 'synthetic', mlp: 'synthetic' }, backend: 'none', precision: 'fp32', devices: [], workers: 0,
    sequences, chunks, frames: written, resumedSequences: 0, tokens: { esm: 0, dnabert: 0 }, batches: 0, tokenBudget: 0, packingEfficiency: 0,
    oomSplits: 0, fp32Recomputes: 0, peakRssBytes: 0, stageSeconds: {}, totalSeconds: 600, sequencesPerSecond: sequences / 600,
    framesPerSecond: written / 600, tokensPerSecond: { esm: 0, dnabert: 0 },
  };
  writeFileSync(join(outDir, 'run_summary.json'), JSON.stringify(summary, null, 2) + '\n');
  return { sequences, chunks, frames: written };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [outDir, frames, chunkLength, readLength] = process.argv.slice(2);
  console.log(await writeSyntheticRun(outDir, Number(frames), { chunkLength: Number(chunkLength ?? 500), ...(readLength ? { readLength: Number(readLength) } : {}) }));
}
