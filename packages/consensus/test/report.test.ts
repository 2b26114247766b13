// report.html's data from a small run folder written by PredictionWriter: every expected number is worked out by
// hand from the frames below (not read back from the code's own files).
import { mkdtempSync, readFileSync, rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PredictionWriter, ReportInputError, writeReport } from '../src/index.js';
import { readReportData } from '../src/report/report-data.js';
import { renderReportHtml } from '../src/report/report-html.js';
// @ts-expect-error -- a plain .mjs script without types
import { reportAssetsSource } from '../scripts/build-report-assets.mjs';

const root = mkdtempSync(join(tmpdir(), 'consensus-report-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const run = join(root, 'run');

/** Chunks of 500 bp laid end to end (a caller's layout; the report only reads the coordinates). */
const layout = (n: number) => Array.from({ length: n }, (_, k) => ({ start: 500 * k, end: 500 * (k + 1) }));

beforeAll(async () => {
  const writer = await PredictionWriter.create(run, { chunkFiles: true });
  writer.declareRecord('a', layout(4)); // V V O U → one region (chunks 1–2), record `virus` (2 of 3 scored)
  writer.declareRecord('b', layout(2)); // O U → `others`
  writer.declareRecord('c', layout(1)); // U → `unscored`
  writer.declareRecord('d', layout(3)); // V O V → one region over all three (gap 1)
  const rows: [string, number][] = [
    ['a_chunk_1F1', 0.91], ['a_chunk_1R1', 0.42], ['a_chunk_2F2', 0.62], ['a_chunk_3F1', 0.2],
    ['b_chunk_1R3', 0.05],
    ['d_chunk_1F1', 0.55], ['d_chunk_2F1', 0.49], ['d_chunk_3F1', 0.999],
  ];
  await writer.writeBatch(rows.map((r) => r[0]), rows.flatMap(([, p]) => [Math.fround(1 - p), Math.fround(p)]));
  await writer.commit();
  writeFileSync(join(run, 'run_summary.json'), JSON.stringify({ input: 'four.fa', chunkLength: 500, models: { esm: 'e', dnabert: 'd', mlp: 'm' }, backend: 'cpu', precision: 'fp32', totalSeconds: 2, frames: 8, sequences: 4, chunks: 10 }));
});

describe('readReportData', () => {
  it('counts records, chunks and regions by call', async () => {
    const d = await readReportData(run);
    expect(d.counts).toEqual({
      records: 4, recordCalls: { virus: 2, others: 1, unscored: 1 },
      chunks: 10, chunkCalls: { virus: 4, others: 3, unscored: 3 },
      regions: 2, viralBases: 1000 + 1500,
    });
  });

  it('histogram: each scored chunk in its bin of 0.02 (viral and non-viral apart)', async () => {
    const d = await readReportData(run);
    const bins = (xs: number[]) => xs.flatMap((n, i) => Array<number>(n).fill(i));
    // viral chunks: a1 0.91 → bin 45, a2 0.62 → 31, d1 0.55 → 27, d3 0.999 → 49; non-viral: a3 0.2 → 10, b1 0.05 → 2, d2 0.49 → 24
    expect(bins(d.histogram.virus)).toEqual([27, 31, 45, 49]);
    expect(bins(d.histogram.others)).toEqual([2, 10, 24]);
  });

  it('table: most viral first (regions, viral chunks, best score), capped with maxRecords', async () => {
    const d = await readReportData(run);
    expect(d.records.map((r) => r.id)).toEqual(['d', 'a', 'b', 'c']);
    expect(d.records[1]).toMatchObject({ id: 'a', length: 2000, chunks: 4, scored: 3, viral: 2, regions: 1, viralBases: 1000, call: 'virus' });
    expect(Number.isNaN(d.records[3].best)).toBe(true);
    expect((await readReportData(run, { maxRecords: 2 })).records.map((r) => r.id)).toEqual(['d', 'a']);
    // maxRecords 1: the selection is trimmed after a and b, and later records are kept only when more viral than
    // the least viral one kept (c is not, d is): the cap gives the same records as cutting the whole sorted table.
    for (const maxRecords of [1, 2, 3]) {
      expect((await readReportData(run, { maxRecords })).records.map((r) => r.id)).toEqual(['d', 'a', 'b', 'c'].slice(0, maxRecords));
    }
  });

  it('tracks: one bin per chunk, or the best of consecutive chunks when downsampled; regions; unscored as -1', async () => {
    const d = await readReportData(run);
    expect(d.tracks.a).toEqual({
      start: [1, 501, 1001, 1501], end: [500, 1000, 1500, 2000], score: [910, 620, 200, -1], viral: [1, 1, 0, 0], chunksPerBin: 1, regions: [[1, 1000]],
    });
    const two = await readReportData(run, { maxTrackPoints: 2 });
    expect(two.tracks.a).toEqual({ start: [1, 1001], end: [1000, 2000], score: [910, 200], viral: [1, 0], chunksPerBin: 2, regions: [[1, 1000]] });
    expect(two.tracks.d).toEqual({ start: [1, 1001], end: [1000, 1500], score: [550, 999], viral: [1, 1], chunksPerBin: 2, regions: [[1, 1500]] });
    // a budget of 5 points keeps the first records' tracks only (d: 3 points, a: 4 would pass it)
    expect(Object.keys((await readReportData(run, { maxTotalTrackPoints: 5 })).tracks)).toEqual(['d']);
  });

  it('reads a run made before the fraction_n column (the same first ten columns)', async () => {
    const before = join(root, 'before-fraction-n');
    const { cpSync } = await import('node:fs');
    cpSync(run, before, { recursive: true });
    const summary = join(before, 'sequence_summary.tsv');
    const lines = readFileSync(summary, 'utf8').split('\n').slice(0, -1);
    writeFileSync(summary, lines.map((line) => line.slice(0, line.lastIndexOf('\t'))).join('\n') + '\n');
    expect(readFileSync(summary, 'utf8').split('\n')[0].split('\t')).toHaveLength(10);
    expect((await readReportData(before)).counts).toEqual((await readReportData(run)).counts);
  });

  it('refuses a folder of an older version, or no run, with a clear error', async () => {
    const old = join(root, 'old');
    const { cpSync } = await import('node:fs');
    cpSync(run, old, { recursive: true });
    unlinkSync(join(old, 'chunk_scores.tsv'));
    await expect(readReportData(old)).rejects.toThrow(/has no chunk_scores.tsv: the run was made by an older virnucpro/);
    cpSync(run, old, { recursive: true });
    writeFileSync(join(old, 'sequence_summary.tsv'), 'Sequence_ID\tchunks\tviral_chunks\tfraction_viral\tbest_virus_score\tcall\na\t4\t2\t0.5\t0.9\tvirus\n');
    await expect(readReportData(old)).rejects.toThrow(ReportInputError);
    await expect(readReportData(join(root, 'nothing'))).rejects.toThrow(/no such folder/);
  });
});

describe('report.html', () => {
  it('is one self-contained file: uPlot and the data inline, nothing fetched', async () => {
    const html = readFileSync(await writeReport(run), 'utf8');
    expect(html).toContain('uPlot');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/[^\s"']+\.(js|css)\b/);
    expect(html).toContain('<dd>four.fa</dd>');
  });

  it('keeps ids from closing the data script', () => {
    const html = renderReportHtml({ run: {}, counts: { records: 1, recordCalls: {}, chunks: 0, chunkCalls: {}, regions: 0, viralBases: 0 }, histogram: { virus: [], others: [] }, records: [{ id: '</script><b>x', length: 1, chunks: 1, scored: 0, viral: 0, fraction: NaN, regions: 0, viralBases: 0, best: NaN, call: 'unscored' }], tracks: {} });
    expect(html).not.toContain('</script><b>x');
  });

  it('warns in a banner when run_summary.json says the demo models (random weights) were used, and only then', async () => {
    const { cpSync } = await import('node:fs');
    const demo = join(root, 'run-demo');
    cpSync(run, demo, { recursive: true });
    const summary = JSON.parse(readFileSync(join(demo, 'run_summary.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(demo, 'run_summary.json'), JSON.stringify({ ...summary, demoModels: true }));
    const withDemo = readFileSync(await writeReport(demo), 'utf8');
    expect(withDemo).toMatch(/<p class="warning" role="alert" id="demo-models-warning">This run used the demo models \(random weights\): its virus\/others calls mean nothing/);
    expect(readFileSync(await writeReport(run), 'utf8')).not.toContain('demo-models-warning');
  });

  it('is titled "standard input" for a run that read standard input (predict -), not "-"', () => {
    const empty = { counts: { records: 0, recordCalls: {}, chunks: 0, chunkCalls: {}, regions: 0, viralBases: 0 }, histogram: { virus: [], others: [] }, records: [], tracks: {} };
    const html = renderReportHtml({ run: { input: '-' }, ...empty });
    expect(html).toContain('<title>virnucpro report — standard input</title>');
    expect(html).toMatch(/<p class="sub">standard input · made /);
    expect(html).toContain('<dd>standard input</dd>');
    expect(renderReportHtml({ run: { input: '/data/four.fa' }, ...empty })).toContain('<title>virnucpro report — /data/four.fa</title>');
  });

  it('the inlined uPlot is what the pinned npm package holds (src/report/uplot-assets.ts is fresh)', () => {
    expect(readFileSync(new URL('../src/report/uplot-assets.ts', import.meta.url), 'utf8')).toBe(reportAssetsSource());
  });
});
