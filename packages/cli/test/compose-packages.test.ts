// Issue #13's acceptance: a package user who composes the packages' exported pieces by hand — read FASTA, cut
// chunks, keep stop-free frames, embed [DNABERT-S | ESM-2] on runEmbedding, classify with the MLP, write with the
// PredictionWriter — gets exactly the files `virnucpro predict` writes. Only public entry points are imported.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PredictionWriter } from '@virnucpro/consensus';
import { loadMlp } from '@virnucpro/mlp';
import { loadDnabertEmbedder } from '@virnucpro/dnabert';
import { loadEsm2Embedder } from '@virnucpro/esm2';
import { readFasta } from '@virnucpro/fasta-stream';
import { fasta$ } from '@virnucpro/fasta-stream/rxjs';
import { packBatches, restoreOrder, type PackItem } from '@virnucpro/packer';
import { pull$, runEmbedding, serialEmbedder } from '@virnucpro/runtime';
import { chunkLayout, chunkRecord, chunkRecords, identifyFrames, sixFrames, type Frame } from '@virnucpro/sixframe';
import { formatSingleLineFasta, formatWrappedFasta } from '@virnucpro/predict';
import { concatMap, from, lastValueFrom, map, mergeMap, tap, toArray } from 'rxjs';
import { runCli, testData } from './cli-harness.js';
import { startCompute } from '@virnucpro/compute';

/** N (or n) bases of a sequence: what sequence_summary.tsv's fraction_n counts. */
const nBases = (sequence: string) => sequence.replace(/[^Nn]/g, '').length;

const example = join(testData, 'e2e/test_with_orfs');
const models = { esm: join(testData, 'e2e/esm2-tiny'), dnabert: join(testData, 'e2e/dnabert-tiny'), mlp: join(testData, 'e2e/mlp.pth') };
const input = join(example, 'test_with_orfs.fa');
const dir = mkdtempSync(join(tmpdir(), 'vnp-compose-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The pipeline written by hand from the packages' public APIs (what a user of the packages would write). */
async function composeByHand(outDir: string): Promise<void> {
  await startCompute({ backend: 'cpu' });
  const dnabert = await loadDnabertEmbedder(models.dnabert);
  const esm = await loadEsm2Embedder(models.esm);
  const mlp = await loadMlp(models.mlp);
  const writer = await PredictionWriter.create(outDir, { chunkFiles: true });
  // FASTA → 500-bp chunks → the stop-free frames of each chunk's six-frame translation.
  async function* frames(): AsyncGenerator<Frame> {
    for await (const record of readFasta(input)) {
      // Where each chunk lies (chunk_scores.tsv, regions) and its N bases (sequence_summary.tsv's fraction_n).
      writer.declareRecord(record.id, chunkLayout(record.sequence.length, 500), { nBases: nBases(record.sequence) });
      for (const chunk of chunkRecord(record, 500)) yield* identifyFrames(chunk.id, chunk.sequence);
    }
  }
  // Each frame's features: DNABERT-S mean of its nucleotides, then ESM-2 mean of its protein.
  const features = serialEmbedder<Frame>(async (batch) => {
    const items = batch.items.map((item) => item.value);
    const [nt, aa] = [await dnabert.embed(items.map((f) => f.nucleotide)), await esm.embed(items.map((f) => f.protein))];
    return items.map((_, row) => Float32Array.from([...nt[row], ...aa[row]]));
  });
  const run = runEmbedding({ items: frames(), pack: { tokenBudget: 1024, window: 64, tokenCount: (f) => f.protein.length + 2 }, pool: features });
  for await (const { item, vector } of run) await writer.writeBatch([item.id], mlp.predict(vector, 1));
  await writer.commit();
  dnabert.dispose();
  esm.dispose();
}

/**
 * The same pipeline as one RxJS chain of the packages' operators (what runEmbedding composes, spelled out):
 * records pulled only while the embedder has credit → chunks → frames → token-budget batches → embedded →
 * input order restored → classified and written.
 */
async function composeOperatorsByHand(outDir: string): Promise<void> {
  await startCompute({ backend: 'cpu' });
  const dnabert = await loadDnabertEmbedder(models.dnabert);
  const esm = await loadEsm2Embedder(models.esm);
  const mlp = await loadMlp(models.mlp);
  const writer = await PredictionWriter.create(outDir, { chunkFiles: true });
  const features = serialEmbedder<Frame>(async (batch) => {
    const items = batch.items.map((item) => item.value);
    const [nt, aa] = [await dnabert.embed(items.map((f) => f.nucleotide)), await esm.embed(items.map((f) => f.protein))];
    return items.map((_, row) => Float32Array.from([...nt[row], ...aa[row]]));
  });
  await lastValueFrom(
    pull$(readFasta(input), features.gate).pipe(
      tap((record) => writer.declareRecord(record.id, chunkLayout(record.sequence.length, 500), { nBases: nBases(record.sequence) })),
      chunkRecords(500),
      sixFrames(),
      map((frame, index): PackItem<Frame> => ({ index, tokens: frame.protein.length + 2, value: frame })),
      packBatches<Frame>({ tokenBudget: 1024, window: 64, carry: false }),
      mergeMap((batch) => features.submit(batch)),
      mergeMap((embedded) => embedded.items.map((item, row) => ({ index: item.index, frame: item.value, vector: embedded.vectors[row] }))),
      restoreOrder(),
      concatMap(({ frame, vector }) => writer.writeBatch([frame.id], mlp.predict(vector, 1))),
    ),
    { defaultValue: undefined },
  );
  await writer.commit();
  dnabert.dispose();
  esm.dispose();
}

/** Runs `compose` into a folder and `virnucpro predict` into another: the result files must be equal. */
async function expectSameAsPredict(compose: (outDir: string) => Promise<void>, name: string): Promise<void> {
  const byHand = join(dir, name);
  await compose(byHand);
  const cli = join(dir, `cli-${name}`);
  const r = runCli(['predict', input, '--length', '500', '--esm', models.esm, '--dnabert', models.dnabert, '--mlp', models.mlp, '--backend', 'cpu', '--out-dir', cli, '--quiet']);
  expect(r.status, r.stderr).toBe(0);
  for (const file of ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv', 'viral_regions.tsv', 'viral_regions.bed']) {
    const expected = readFileSync(join(cli, file), 'utf8');
    if (!file.startsWith('viral_regions')) expect(expected.split('\n').length).toBeGreaterThan(2); // real rows, not just a header
    expect(readFileSync(join(byHand, file), 'utf8'), file).toBe(expected);
  }
}

describe('the packages composed by hand', () => {
  it("write byte for byte what `virnucpro predict` writes", async () => {
    await expectSameAsPredict(composeByHand, 'by-hand');
  }, 120_000);
});

describe("the packages' RxJS operators composed by hand", () => {
  it('write byte for byte what `virnucpro predict` writes (pull$ → chunkRecords → sixFrames → packBatches → submit → restoreOrder)', async () => {
    await expectSameAsPredict(composeOperatorsByHand, 'operators-by-hand');
  }, 120_000);

  it('write byte for byte what `virnucpro prep` writes (the original tool\'s three files)', async () => {
    const stem = 'test_with_orfs';
    const source = join(testData, 'sixframe', `${stem}.fa`);
    // fasta$ → chunkRecords → the chunk file; the same chunks → sixFrames → the two frame files.
    const chunks = await lastValueFrom(fasta$(source).pipe(chunkRecords(500), toArray()));
    const frames = await lastValueFrom(from(chunks).pipe(sixFrames(), toArray()));
    const text = (lines: string[]) => lines.join('');
    const byHand = {
      '_chunked500.fa': text(chunks.map((c) => formatWrappedFasta(c.id, c.sequence))),
      '_identified_nucleotide.fa': text(frames.map((f) => formatSingleLineFasta(f.id, f.nucleotide))),
      '_identified_protein.faa': text(frames.map((f) => formatSingleLineFasta(f.id, f.protein))),
    };
    const out = join(dir, 'prep');
    const r = runCli(['prep', source, '--length', '500', '--out-dir', out, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    for (const [suffix, content] of Object.entries(byHand)) {
      const expected = readFileSync(join(out, stem + suffix), 'utf8');
      expect(expected.length).toBeGreaterThan(100);
      expect(content, suffix).toBe(expected);
    }
  });
});
