// `virnucpro predict` end to end through the built launcher against the original method's outputs: the
// reference PyTorch fp32 run of VirNucPro with tiny ESM-2 / DNABERT-S / MLP models (test-data/e2e, see its
// README). Ids, order and labels must match exactly, scores within 1e-5, the consensus file and the three
// prep files (--keep-intermediate) byte for byte.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/virnucpro.js', import.meta.url));
const e2e = fileURLToPath(new URL('../../../test-data/e2e/', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'predict-parity-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const models = ['--esm', join(e2e, 'esm2-tiny'), '--dnabert', join(e2e, 'dnabert-tiny'), '--mlp', join(e2e, 'mlp.pth')];

interface Row {
  id: string;
  label: string;
  score1: number;
  score2: number;
}

function readRows(path: string): { header: string; rows: Row[] } {
  const text = readFileSync(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  const [header, ...lines] = text.slice(0, -1).split('\n');
  return {
    header,
    rows: lines.map((line) => {
      const [id, label, s1, s2, ...rest] = line.split('\t');
      expect(rest).toEqual([]);
      return { id, label, score1: Number(s1), score2: Number(s2) };
    }),
  };
}

describe.each(['test_fixed_500bp', 'test_with_orfs'])('virnucpro predict on %s (tiny models)', (example) => {
  const expectedDir = join(e2e, example);
  const out = join(tmp, example);
  const run = spawnSync(
    process.execPath,
    [bin, 'predict', join(expectedDir, `${example}.fa`), ...models, '--length', '500', '--backend', 'cpu', '--keep-intermediate', '--out-dir', out, '--quiet'],
    { encoding: 'utf8' },
  );

  it('exits 0 and writes the outputs, the intermediates and nothing else', () => {
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(readdirSync(out).sort()).toEqual(
      [
        '.checkpoints',
        'chunk_scores.tsv',
        'prediction_results.txt',
        'prediction_results_highestscore.csv',
        'report.html',
        'run_summary.json',
        'sequence_summary.tsv',
        'viral_regions.bed',
        'viral_regions.tsv',
        `${example}_chunked500.fa`,
        `${example}_identified_nucleotide.fa`,
        `${example}_identified_protein.faa`,
      ].sort(),
    );
  });

  it('prediction_results.txt: same header, ids in the same order, same labels, scores within 1e-5', () => {
    const got = readRows(join(out, 'prediction_results.txt'));
    const expected = readRows(join(expectedDir, 'prediction_results.txt'));
    expect(got.header).toBe('Sequence_ID\tPrediction\tscore1\tscore2');
    expect(got.header).toBe(expected.header);
    expect(expected.rows.length).toBeGreaterThan(0);
    expect(got.rows.map((r) => r.id)).toEqual(expected.rows.map((r) => r.id));
    expect(got.rows.map((r) => r.label)).toEqual(expected.rows.map((r) => r.label));
    got.rows.forEach((row, i) => {
      expect(Math.abs(row.score1 - expected.rows[i].score1), `${row.id} score1`).toBeLessThanOrEqual(1e-5);
      expect(Math.abs(row.score2 - expected.rows[i].score2), `${row.id} score2`).toBeLessThanOrEqual(1e-5);
    });
  });

  it('prediction_results_highestscore.csv is byte-identical', () => {
    expect(readFileSync(join(out, 'prediction_results_highestscore.csv'), 'utf8')).toBe(
      readFileSync(join(expectedDir, 'prediction_results_highestscore.csv'), 'utf8'),
    );
  });

  it.each(['_chunked500.fa', '_identified_nucleotide.fa', '_identified_protein.faa'])('--keep-intermediate: %s is byte-identical to the original tool', (suffix) => {
    expect(readFileSync(join(out, example + suffix)).equals(readFileSync(join(expectedDir, example + suffix)))).toBe(true);
  });

  it('run_summary.json records the run', () => {
    const summary = JSON.parse(readFileSync(join(out, 'run_summary.json'), 'utf8'));
    expect(summary.status).toBe('complete');
    expect(summary.backend).toBe('cpu');
    expect(summary.precision).toBe('fp32');
    expect(summary.oomSplits).toBe(0);
    expect(summary.cuda).toBeUndefined();
    expect(summary.chunkLength).toBe(500);
    expect(summary.frames).toBe(readRows(join(expectedDir, 'prediction_results.txt')).rows.length);
    expect(summary.resumedSequences).toBe(0);
  });
});
