import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { consensusFromRows, PredictionWriter } from '../src/index.js';
import { parsePredictionResults } from '../src/prediction-row.js';
import { SEQUENCE_SUMMARY_HEADER } from '../src/sequence-summary.js';
import { MERGE_FAN_IN } from '../src/spilled-chunk-maxima.js';
import { VIRAL_REGIONS_HEADER } from '../src/viral-regions.js';

const root = mkdtempSync(join(tmpdir(), 'consensus-writer-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const data = new URL('../../../test-data/consensus/', import.meta.url);

describe('PredictionWriter', () => {
  it('streams the original rows back to the original files (virnucpro example)', async () => {
    const txt = readFileSync(new URL('virnucpro-examples/test_with_orfs_prediction_results.txt', data), 'utf8');
    const csv = readFileSync(new URL('virnucpro-examples/test_with_orfs_prediction_results_highestscore.csv', data), 'utf8');
    const rows = parsePredictionResults(txt);
    const out = join(root, 'example');
    const writer = await PredictionWriter.create(out);
    await writer.write(rows[0].id, rows[0].score1, rows[0].score2);
    const rest = rows.slice(1);
    await writer.writeBatch(rest.map((r) => r.id), rest.flatMap((r) => [r.score1, r.score2]));
    // nothing is published before finish()
    expect(existsSync(join(out, 'prediction_results.txt'))).toBe(false);
    const files = await writer.commit();
    expect(readFileSync(files.predictions, 'utf8')).toBe(txt);
    expect(readFileSync(files.consensus, 'utf8')).toBe(csv);
    expect(readFileSync(files.summary!, 'utf8')).toBe(
      'Sequence_ID\tlength\tchunks\tscored_chunks\tviral_chunks\tfraction_viral\tregions\tviral_bases\tbest_virus_score\tcall\tfraction_n\n' +
        'synthetic_seq_1\t\t1\t1\t1\t1.0000\t\t\t0.9988405\tvirus\t\n' +
        'synthetic_seq_2\t\t1\t1\t1\t1.0000\t\t\t0.93954605\tvirus\t\n',
    );
    expect(readdirSync(out).sort()).toEqual(['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv']);
  });

  it('abort leaves no file behind', async () => {
    const out = join(root, 'aborted');
    const writer = await PredictionWriter.create(out);
    await writer.write('a_chunk_1F1', 0.1, 0.9);
    await writer.discard();
    expect(readdirSync(out)).toEqual([]);
    await expect(writer.write('b', 0, 1)).rejects.toThrow(/already completed or discarded/);
  });

  it('keeps input order over many rows and many chunks (consensus equals the pure function)', async () => {
    const out = join(root, 'many');
    const writer = await PredictionWriter.create(out, { summary: false });
    const rows: { id: string; score1: number; score2: number }[] = [];
    let seed = 1;
    const rand = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    for (let s = 0; s < 200; s++) {
      for (let c = 1; c <= 30; c++) {
        for (const f of ['F1', 'F2', 'R1']) {
          const p = Math.fround(rand());
          rows.push({ id: `seq${s}_chunk_${c}${f}`, score1: Math.fround(1 - p), score2: p });
        }
      }
    }
    for (let i = 0; i < rows.length; i += 256) {
      const b = rows.slice(i, i + 256);
      await writer.writeBatch(b.map((r) => r.id), b.flatMap((r) => [r.score1, r.score2]));
    }
    const files = await writer.commit();
    expect(files.rows).toBe(18000);
    expect(files.chunks).toBe(6000);
    const back = parsePredictionResults(readFileSync(files.predictions, 'utf8'));
    expect(back.map((r) => r.id)).toEqual(rows.map((r) => r.id));
    expect(back.map((r) => r.score2)).toEqual(rows.map((r) => r.score2)); // float32 round trip
    expect(readFileSync(files.consensus, 'utf8')).toBe(consensusFromRows(rows));
    expect(existsSync(join(out, 'sequence_summary.tsv'))).toBe(false);
  });

  it('consensus through sorted scratch runs: same bytes as in memory, keys split over runs combined, no file left', async () => {
    // Frames of one key far apart (undeclared rows, as a features file has them), NaN scores, non-ASCII and
    // astral-plane ids, and more runs than one merge pass takes: the csv must still be the pure function's.
    let seed = 3;
    const rand = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    const names = ['seq', 'séq', 'sé𝔮', 'SEQ', 'seq_10', 'seq_2'];
    const rows: { id: string; score1: number; score2: number }[] = [];
    for (let pass = 0; pass < 3; pass++) {
      for (let i = 0; i < 400; i++) {
        const p = rand() < 0.05 ? NaN : Math.fround(rand());
        const id = `${names[i % names.length]}${Math.floor(i / 7)}_chunk_${1 + (i % 13)}${pass === 1 ? 'R2' : 'F1'}`;
        rows.push({ id, score1: Math.fround(1 - p), score2: p });
      }
    }
    for (const scoreColumns of [false, true]) {
      const out = join(root, `spilled-${scoreColumns}`);
      const writer = await PredictionWriter.create(out, { summary: false, consensusRunChunks: 5, consensusScoreColumns: scoreColumns });
      // Batches of 7 rows (7 keys): a run each, more runs than one merge pass takes.
      for (let i = 0; i < rows.length; i += 7) {
        const b = rows.slice(i, i + 7);
        await writer.writeBatch(b.map((r) => r.id), b.flatMap((r) => [r.score1, r.score2]));
      }
      // More runs than one merge takes (1,200 rows in batches of 7, a run each): some were merged while rows kept coming.
      expect(Math.ceil(rows.length / 7)).toBeGreaterThan(MERGE_FAN_IN);
      expect(readdirSync(out).filter((f) => f.startsWith('.consensus-run.')).length).toBeGreaterThan(0);
      const files = await writer.commit();
      const expected = consensusFromRows(rows, { scoreColumns });
      expect(readFileSync(files.consensus, 'utf8')).toBe(expected);
      expect(files.chunks).toBe(expected.split('\n').length - 2);
      expect(readdirSync(out).sort()).toEqual(['prediction_results.txt', 'prediction_results_highestscore.csv']);
    }
  });

  it('consensus through scratch runs read back in several blocks, a key longer than a block included', async () => {
    // A run reader refills one 32 KiB buffer (the unread rest moved to its front): runs of ~200 KB each, so groups
    // straddle the refills, and one key of 80 KB (UTF-16), more than a block.
    let seed = 11;
    const rand = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    const rows: { id: string; score1: number; score2: number }[] = [];
    for (let i = 0; i < 9_000; i++) {
      const p = Math.fround(rand());
      const record = i === 4_500 ? `long${'é'.repeat(40_000)}` : `read${(i * 7919) % 9_000}`;
      rows.push({ id: `${record}_chunk_${1 + (i % 3)}F${1 + (i % 2)}`, score1: Math.fround(1 - p), score2: p });
    }
    const out = join(root, 'spilled-blocks');
    const writer = await PredictionWriter.create(out, { summary: false, consensusRunChunks: 3_000 });
    for (let i = 0; i < rows.length; i += 256) {
      const b = rows.slice(i, i + 256);
      await writer.writeBatch(b.map((r) => r.id), b.flatMap((r) => [r.score1, r.score2]));
    }
    const files = await writer.commit();
    expect(readFileSync(files.consensus, 'utf8')).toBe(consensusFromRows(rows));
  });

  it('a discarded writer removes its consensus scratch runs too', async () => {
    const out = join(root, 'spilled-discarded');
    const writer = await PredictionWriter.create(out, { consensusRunChunks: 1 });
    await writer.writeBatch(['a_chunk_1F1', 'b_chunk_1F1', 'c_chunk_1F1'], [0.1, 0.9, 0.2, 0.8, 0.3, 0.7]);
    expect(readdirSync(out).filter((f) => f.startsWith('.consensus-run.')).length).toBeGreaterThan(0);
    await writer.discard();
    expect(readdirSync(out)).toEqual([]);
    await expect(PredictionWriter.create(join(root, 'no-runs'), { consensusRunChunks: 0 })).rejects.toThrow(RangeError);
    expect(existsSync(join(root, 'no-runs'))).toBe(false);
  });

  it('chunkFiles: chunk_scores.tsv with the declared layout, regions and the summary, record by record', async () => {
    const out = join(root, 'chunks');
    const writer = await PredictionWriter.create(out, { chunkFiles: true });
    // 1,234 bp in 500-bp chunks: [0,500), [411,911), [822,1234) (virnucpro-reference.md §1.1)
    writer.declareRecord('r', [{ start: 0, end: 500 }, { start: 411, end: 911 }, { start: 822, end: 1234 }], { nBases: 617 });
    writer.declareSkippedRecord('short', 6, { nBases: 0 }); // e.g. under --min-length: a summary row only
    writer.declareRecord('gap', [{ start: 0, end: 300 }]); // no frame at all
    writer.declareRecord('v', [{ start: 0, end: 500 }, { start: 250, end: 501 }]);
    await writer.writeBatch(['r_chunk_1F1', 'r_chunk_1R2', 'r_chunk_1R3', 'r_chunk_3F3'], [0.2, 0.8, 0.1, 0.9, 0.05, 0.9, 0.7, 0.3]);
    // nothing but headers yet for the records still open; r finishes when a later record's frame comes
    await writer.write('v_chunk_1F2', 0.4, 0.6);
    await writer.writeBatch(['v_chunk_2R1'], [0.5, 0.5]);
    const files = await writer.commit();
    expect(readFileSync(files.chunkScores!, 'utf8')).toBe(
      'Sequence_ID\tchunk_id\tstart\tend\tscored_frames\tbest_virus_score\tbest_frame\tcall\n' +
        'r\tr_chunk_1\t1\t500\t3\t0.9\tR2\tvirus\n' + // first of the tied best frames
        'r\tr_chunk_2\t412\t911\t0\t\t\tunscored\n' +
        'r\tr_chunk_3\t823\t1234\t1\t0.3\tF3\tothers\n' +
        'gap\tgap_chunk_1\t1\t300\t0\t\t\tunscored\n' +
        'v\tv_chunk_1\t1\t500\t1\t0.6\tF2\tvirus\n' +
        'v\tv_chunk_2\t251\t501\t1\t0.5\tR1\tvirus\n', // a tie goes to virus, as in the consensus csv
    );
    expect(readFileSync(files.regions!, 'utf8')).toBe(`${VIRAL_REGIONS_HEADER}\nv\t1\t501\t501\t2\t2\t0\t0\t0.55\t0.6\t1.0000\n`);
    expect(readFileSync(files.regionsBed!, 'utf8')).toBe('v\t0\t501\tv_region_1\t550\t.\n');
    expect(readFileSync(files.summary!, 'utf8')).toBe(
      `${SEQUENCE_SUMMARY_HEADER}\n` +
        'r\t1234\t3\t2\t1\t0.5000\t0\t0\t0.9\tvirus\t0.5000\n' +
        'short\t6\t0\t0\t0\t\t0\t0\t\tskipped\t0.0000\n' +
        'gap\t300\t1\t0\t0\t\t0\t0\t\tunscored\t\n' +
        'v\t501\t2\t2\t2\t1.0000\t1\t501\t0.6\tvirus\t\n',
    );
    expect(readFileSync(files.consensus, 'utf8')).toBe('Modified_ID\tIs_Virus\nr_chunk_1\tTrue\nr_chunk_3\tFalse\nv_chunk_1\tTrue\nv_chunk_2\tTrue\n');
    expect(readdirSync(out).sort()).toEqual(
      ['chunk_scores.tsv', 'prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'viral_regions.bed', 'viral_regions.tsv'],
    );
  });

  it('chunkFiles: a frame of an undeclared record, or out of input order, is an error and leaves no file', async () => {
    const out = join(root, 'undeclared');
    const writer = await PredictionWriter.create(out, { chunkFiles: true });
    writer.declareRecord('a', [{ start: 0, end: 300 }]);
    writer.declareRecord('b', [{ start: 0, end: 300 }]);
    await writer.write('b_chunk_1F1', 0.1, 0.9);
    await expect(writer.write('a_chunk_1F1', 0.1, 0.9)).rejects.toThrow(/'a', which was not declared/);
    await expect(writer.write('b_chunk_2F1', 0.1, 0.9)).rejects.toThrow(/declared with 1 chunk/);
    await writer.discard();
    expect(readdirSync(out)).toEqual([]);
  });

  it('header-only outputs when there are no rows', async () => {
    const out = join(root, 'empty');
    const files = await (await PredictionWriter.create(out)).commit();
    expect(readFileSync(files.predictions, 'utf8')).toBe('Sequence_ID\tPrediction\tscore1\tscore2\n');
    expect(readFileSync(files.consensus, 'utf8')).toBe('Modified_ID\tIs_Virus\n');
  });
});
