// The saved-embeddings folder (--save-embeddings): written as a run goes in shards of a bounded number of rows, shown
// only once published (shards, records.tsv, index.json last), nothing left behind when discarded; read back shard
// by shard as float32 (fp16 widened); and classified into the files a PredictionWriter fed as predict feeds it
// writes, byte for byte; folders that are not complete sets are refused in one line.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seededMlp } from './seeded-mlp.js';
import { PredictionWriter } from '@virnucpro/consensus';
import { MlpClassifier } from '@virnucpro/mlp';
import { chunkLayout } from '@virnucpro/sixframe';
import { openSafetensors } from '@virnucpro/weights';
import { SavedEmbeddingsWriter } from '../src/saved-embeddings-writer.js';
import { openSavedEmbeddings, SavedEmbeddingsError } from '../src/saved-embeddings-reader.js';
import { classifySavedEmbeddings } from '../src/classify-saved-embeddings.js';

const tmp = mkdtempSync(join(tmpdir(), 'saved-embeddings-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const mlpOf = (input: number) => seededMlp(input, 777);

const DIM = 6;
const CHUNK = 300;
// Records as predict declares them: one skipped (--min-length), one with no frame, ids holding `_chunk_`.
const records = [
  { id: 'a', length: 900, nBases: 3 },
  { id: 'short', length: 120, nBases: 0, skipped: true },
  { id: 'b_chunk_7', length: 650, nBases: 0 },
  { id: 'no_frames', length: 400, nBases: 400 },
  { id: 'c', length: 300, nBases: 0 },
];
// Frames in input order: record, chunk, frame.
const frameIds = ['a_chunk_1F1', 'a_chunk_1R2', 'a_chunk_2F3', 'a_chunk_3R1', 'b_chunk_7_chunk_1F1', 'b_chunk_7_chunk_3F2', 'b_chunk_7_chunk_3R3', 'c_chunk_1F1'];
const featuresOf = (i: number) => Float32Array.from({ length: DIM }, (_, k) => Math.sin(i * 1.7 + k) * 3);

/** Writes the run: records declared as predict does (before their frames), features in batches of `batch`. */
async function writeRun(dir: string, options: { dtype?: 'float32' | 'float16'; shardRows: number; batch: number }): Promise<SavedEmbeddingsWriter> {
  const writer = await SavedEmbeddingsWriter.create(dir, { chunkLength: CHUNK, regions: { gap: 0, maxGapBases: 100, minChunks: 1 }, dnabertDim: 2, shardRows: options.shardRows, ...(options.dtype ? { dtype: options.dtype } : {}) });
  for (const r of records) {
    if (r.skipped) writer.declareSkippedRecord(r.id, r.length, { nBases: r.nBases });
    else writer.declareRecord(r.id, chunkLayout(r.length, CHUNK), { nBases: r.nBases });
  }
  for (let start = 0; start < frameIds.length; start += options.batch) {
    const ids = frameIds.slice(start, start + options.batch);
    const rows = new Float32Array(ids.length * DIM);
    ids.forEach((_, i) => rows.set(featuresOf(start + i), i * DIM));
    await writer.writeFeatures(ids, rows, DIM);
  }
  return writer;
}

const visible = (dir: string) => readdirSync(dir).filter((f) => !f.startsWith('.')).sort();

describe('SavedEmbeddingsWriter', () => {
  it('writes shards of at most shardRows rows under temporary names; publish shows the set, index.json last', async () => {
    const dir = join(tmp, 'written');
    const writer = await writeRun(dir, { shardRows: 3, batch: 2 });
    expect(writer.shardsWritten).toBe(2); // two full shards on disk before the end: memory holds one shard's rows
    expect(visible(dir)).toEqual([]);
    await writer.complete();
    expect(visible(dir)).toEqual([]);
    await writer.publish();
    expect(visible(dir)).toEqual(['embeddings-000001.safetensors', 'embeddings-000002.safetensors', 'embeddings-000003.safetensors', 'index.json', 'records.tsv']);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));
    expect(index).toMatchObject({ dtype: 'float32', dim: DIM, dnabertDim: 2, chunkLength: CHUNK, frames: 8, records: 5, shards: [{ rows: 3 }, { rows: 3 }, { rows: 2 }] });
    // Each shard alone is a features file of classify's layout: `embeddings` and the ids of its rows.
    const shard = await openSafetensors(join(dir, 'embeddings-000002.safetensors'));
    expect(JSON.parse(shard.metadata.ids)).toEqual(frameIds.slice(3, 6));
    expect(shard.metadata).toMatchObject({ first_frame: '3', dnabert_dim: '2', esm_dim: '4' });
    expect(Array.from((await shard.readTensor('embeddings')).data as Float32Array)).toEqual([3, 4, 5].flatMap((i) => Array.from(featuresOf(i))));
    await shard.close();
    expect(readFileSync(join(dir, 'records.tsv'), 'utf8')).toBe(
      'Sequence_ID\tlength\tn_bases\tstatus\na\t900\t3\tchunked\nshort\t120\t0\tskipped\nb_chunk_7\t650\t0\tchunked\nno_frames\t400\t400\tchunked\nc\t300\t0\tchunked\n',
    );
  });

  it('discard leaves nothing, and removes the folder it made', async () => {
    const dir = join(tmp, 'discarded', 'embeddings');
    const writer = await writeRun(dir, { shardRows: 2, batch: 3 });
    await writer.discard();
    expect(existsSync(join(tmp, 'discarded'))).toBe(false);
  });

  it('a run published over an earlier one with more shards removes the shards the new index does not list', async () => {
    const dir = join(tmp, 'rewritten');
    await (await writeRun(dir, { shardRows: 2, batch: 2 })).publish();
    expect(visible(dir).filter((f) => f.endsWith('.safetensors')).length).toBe(4);
    await (await writeRun(dir, { shardRows: 5, batch: 2 })).publish();
    expect(visible(dir)).toEqual(['embeddings-000001.safetensors', 'embeddings-000002.safetensors', 'index.json', 'records.tsv']);
  });
});

describe('openSavedEmbeddings and classifySavedEmbeddings', () => {
  /** The files of a PredictionWriter fed as predict feeds it: records declared first, the MLP's rows in order. */
  async function predictedFiles(out: string, mlp: MlpClassifier): Promise<void> {
    const writer = await PredictionWriter.create(out, { regions: { gap: 0, maxGapBases: 100, minChunks: 1 } });
    for (const r of records) {
      if (r.skipped) writer.declareSkippedRecord(r.id, r.length, { nBases: r.nBases });
      else writer.declareRecord(r.id, chunkLayout(r.length, CHUNK), { nBases: r.nBases });
    }
    const rows = new Float32Array(frameIds.length * DIM);
    frameIds.forEach((_, i) => rows.set(featuresOf(i), i * DIM));
    await writer.writeBatch(frameIds, mlp.predict(rows, frameIds.length));
    await writer.commit();
  }
  const FILES = ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv'];

  it('reads the shards back in order and classifies them into the same bytes, whatever the shard size', async () => {
    const mlp = mlpOf(DIM);
    await predictedFiles(join(tmp, 'expected'), mlp);
    for (const shardRows of [1, 3, 100]) {
      const dir = join(tmp, `read-${shardRows}`);
      await (await writeRun(dir, { shardRows, batch: 3 })).publish();
      const saved = await openSavedEmbeddings(dir);
      const read: number[] = [];
      for await (const shard of saved.shards()) read.push(...Array.from(shard.features));
      expect(read).toEqual(frameIds.flatMap((_, i) => Array.from(featuresOf(i))));
      const out = join(tmp, `classified-${shardRows}`);
      const files = await classifySavedEmbeddings(mlp, await openSavedEmbeddings(join(dir, 'index.json')), out);
      expect(files.rows).toBe(frameIds.length);
      for (const f of FILES) expect(readFileSync(join(out, f), 'utf8'), f).toBe(readFileSync(join(tmp, 'expected', f), 'utf8'));
    }
    // The records predict declared are all there: the skipped one, the one without frames, fraction_n.
    expect(readFileSync(join(tmp, 'expected', 'sequence_summary.tsv'), 'utf8')).toMatch(/\nshort\t120\t.*\tskipped\t0\.0000\n[^]*\nno_frames\t400\t2\t0\t.*\tunscored\t1\.0000\n/);
  });

  it('fp16: half the bytes, features within fp16 rounding, scores close', async () => {
    const dir = join(tmp, 'fp16');
    await (await writeRun(dir, { dtype: 'float16', shardRows: 4, batch: 3 })).publish();
    const saved = await openSavedEmbeddings(dir);
    expect(saved.index.dtype).toBe('float16');
    let i = 0;
    for await (const shard of saved.shards()) {
      for (let row = 0; row < shard.ids.length; row++, i++) {
        const want = featuresOf(i);
        for (let k = 0; k < DIM; k++) expect(Math.abs(shard.features[row * DIM + k] - want[k])).toBeLessThanOrEqual(Math.abs(want[k]) * 2 ** -11 + 1e-7);
      }
    }
    const out = join(tmp, 'fp16-classified');
    await classifySavedEmbeddings(mlpOf(DIM), saved, out);
    const scores = (path: string) => readFileSync(path, 'utf8').trim().split('\n').slice(1).map((l) => Number(l.split('\t')[3]));
    const want = scores(join(tmp, 'expected', 'prediction_results.txt'));
    scores(join(out, 'prediction_results.txt')).forEach((s, k) => expect(Math.abs(s - want[k])).toBeLessThan(1e-3));
  });

  it('refuses a folder without index.json, a missing shard, an MLP of another size and records that do not match, writing nothing', async () => {
    await expect(openSavedEmbeddings(join(tmp, 'nowhere'))).rejects.toThrow(/no index\.json \(not a folder of saved embeddings, or one of a run that did not finish\)/);
    const dir = join(tmp, 'damaged');
    await (await writeRun(dir, { shardRows: 3, batch: 3 })).publish();
    await expect(classifySavedEmbeddings(mlpOf(DIM + 1), await openSavedEmbeddings(dir), join(tmp, 'out-a'))).rejects.toThrow(/frames have 6 features but the MLP expects 7/);
    const tsv = readFileSync(join(dir, 'records.tsv'), 'utf8').split('\n');
    writeFileSync(join(dir, 'records.tsv'), [tsv[0], tsv[1], tsv[2], tsv[5], tsv[4], tsv[3], ''].join('\n')); // c before b_chunk_7
    const out = join(tmp, 'out-b');
    const failure = classifySavedEmbeddings(mlpOf(DIM), await openSavedEmbeddings(dir), out);
    await expect(failure).rejects.toBeInstanceOf(SavedEmbeddingsError);
    await expect(failure).rejects.toThrow(/frame 'c_chunk_1F1' belongs to no record listed after 'b_chunk_7' in records\.tsv/);
    expect(visible(out)).toEqual([]);
    writeFileSync(join(dir, 'records.tsv'), [tsv[0], tsv[1], ''].join('\n'));
    await expect(classifySavedEmbeddings(mlpOf(DIM), await openSavedEmbeddings(dir), out)).rejects.toThrow(/records\.tsv: 1 records, index\.json says 5/);
    unlinkSync(join(dir, 'embeddings-000002.safetensors'));
    await expect(openSavedEmbeddings(dir)).rejects.toThrow(/embeddings-000002\.safetensors: missing/);
  });
});
