import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { consensusFromRows, parsePredictionResults, PredictionWriter } from '../src/index.js';

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
      'Sequence_ID\tchunks\tviral_chunks\tfraction_viral\tbest_virus_score\tcall\n' +
        'synthetic_seq_1\t1\t1\t1.0000\t0.9988405\tvirus\n' +
        'synthetic_seq_2\t1\t1\t1.0000\t0.93954605\tvirus\n',
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

  it('header-only outputs when there are no rows', async () => {
    const out = join(root, 'empty');
    const files = await (await PredictionWriter.create(out)).commit();
    expect(readFileSync(files.predictions, 'utf8')).toBe('Sequence_ID\tPrediction\tscore1\tscore2\n');
    expect(readFileSync(files.consensus, 'utf8')).toBe('Modified_ID\tIs_Virus\n');
  });
});
