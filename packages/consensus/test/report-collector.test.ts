// The report's data gathered as the writer writes (ReportCollector, what `virnucpro predict` does) is the data read
// back from the written files (readReportData, what `virnucpro report` and `merge` do), for random runs under caps
// small enough that the table is cut, tracks are downsampled and the point budget ends them, and the candidates are
// pruned many times on the way.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PredictionWriter, ReportCollector } from '../src/index.js';
import { readReportData } from '../src/report/report-data.js';

const root = mkdtempSync(join(tmpdir(), 'consensus-report-collector-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe('ReportCollector fed by the writer', () => {
  for (const [seed, caps] of [
    [1, { maxRecords: 5, maxTrackPoints: 3, maxTotalTrackPoints: 12 }],
    [2, { maxRecords: 3, maxTrackPoints: 50, maxTotalTrackPoints: 40 }],
    [3, { maxRecords: 40, maxTrackPoints: 4, maxTotalTrackPoints: 1000 }],
    [4, {}],
    [5, { maxRecords: 60, maxTrackPoints: 10, maxTotalTrackPoints: 100 }],
    [6, { maxRecords: 1000, maxTrackPoints: 10, maxTotalTrackPoints: 60 }],
  ] as const) {
    it(`gives the data read back from the files (seed ${seed}, caps ${JSON.stringify(caps)})`, async () => {
      const random = lcg(seed);
      const dir = join(root, `run-${seed}`);
      const report = new ReportCollector(caps);
      const writer = await PredictionWriter.create(dir, { chunkFiles: true, report });
      const ids: string[] = [];
      const scores: number[] = [];
      for (let r = 0; r < 120; r++) {
        const id = `rec${r}`;
        if (random() < 0.05) {
          writer.declareSkippedRecord(id, 20);
          continue;
        }
        const chunks = 1 + Math.floor(random() ** 3 * 30);
        writer.declareRecord(id, Array.from({ length: chunks }, (_, k) => ({ start: 300 * k, end: 300 * (k + 1) })));
        // Viral stretches are likelier after a viral chunk, so that regions form; some chunks get no frame.
        let p = random();
        for (let k = 1; k <= chunks; k++) {
          p = random() < 0.7 ? p : random();
          for (const frame of ['F1', 'R2']) {
            if (random() < 0.3) continue;
            ids.push(`${id}_chunk_${k}${frame}`);
            const virus = Math.fround(Math.min(1, Math.max(0, p + (random() - 0.5) * 0.2)));
            scores.push(Math.fround(1 - virus), virus);
          }
        }
      }
      await writer.writeBatch(ids, scores);
      await writer.commit();
      const run = { input: 'random.fa', frames: ids.length };
      writeFileSync(join(dir, 'run_summary.json'), JSON.stringify(run));
      const gathered = report.data(run);
      const read = await readReportData(dir, caps);
      expect(JSON.stringify(gathered)).toBe(JSON.stringify(read));
      // The table and which records get a track, by brute force over every record (the collector prunes on the way).
      const all = readFileSync(join(dir, 'sequence_summary.tsv'), 'utf8').trim().split('\n').slice(1).map((line, order) => {
        const f = line.split('\t');
        return { id: f[0], chunks: Number(f[2]), viral: Number(f[4]), regions: Number(f[6] || 0), best: f[8] === '' ? 0 : Number(f[8]), order };
      });
      all.sort((x, y) => y.regions - x.regions || y.viral - x.viral || y.best - x.best || x.order - y.order);
      const table = all.slice(0, caps.maxRecords ?? 5000);
      let budget = caps.maxTotalTrackPoints ?? 200_000;
      const tracked = new Set<string>();
      for (const r of table) {
        const points = Math.min(r.chunks, caps.maxTrackPoints ?? 2000);
        if (points > budget) break;
        budget -= points;
        if (points > 0) tracked.add(r.id);
      }
      expect(gathered.records.map((r) => r.id)).toEqual(table.map((r) => r.id));
      expect(new Set(Object.keys(gathered.tracks))).toEqual(tracked);
      expect(gathered.counts.regions).toBeGreaterThan(0);
      expect(Object.keys(gathered.tracks).length).toBeGreaterThan(0);
    });
  }

  it('a writer asked for a report without the per-record files is refused', async () => {
    await expect(PredictionWriter.create(join(root, 'no-chunk-files'), { report: new ReportCollector() })).rejects.toThrow(/report needs/);
  });
});

describe('ReportCollector reading chunk_scores.tsv lines', () => {
  it("takes each line's start, end, score and call as a split on tabs gives them, short and long lines included", () => {
    const lines = [
      'r\tr_chunk_1\t1\t300\t2\t0.75\tF1\tvirus',
      'r\tr_chunk_2\t301\t600\t1\t0.25\tR2\tothers',
      'r\tr_chunk_3\t601\t900\t0\t\t\tunscored',
      'r\tr_chunk_4\t901\t1200', // no score, no call
      'r\tr_chunk_5\t1201\t1500\t1\t0.5\tF3\tvirus\textra', // a field more: the call is still the eighth
    ];
    const collector = new ReportCollector({ maxTrackPoints: 1000 });
    collector.addRecord('r\t1500\t5\t3\t2\t0.4000\t0\t0\t0.75\tvirus\t0.0000', lines, []);
    const data = collector.data({});
    // The expectations, by split.
    const fields = lines.map((line) => line.split('\t'));
    const calls: Record<string, number> = { virus: 0, others: 0, unscored: 0 };
    for (const f of fields) calls[String(f[7])] = (calls[String(f[7])] ?? 0) + 1;
    expect(data.counts.chunkCalls).toEqual(calls);
    const virusBins = data.histogram.virus.flatMap((n, bin) => (n ? [[bin, n]] : []));
    const othersBins = data.histogram.others.flatMap((n, bin) => (n ? [[bin, n]] : []));
    expect(virusBins).toEqual([[25, 1], [37, 1]]);
    expect(othersBins).toEqual([[12, 1]]);
    const track = data.tracks.r;
    expect(track.start).toEqual(fields.map((f) => Number(f[2])));
    expect(track.end).toEqual(fields.map((f) => Number(f[3])));
    expect(track.score).toEqual([750, 250, -1, -1, 500]);
    expect(track.viral).toEqual([1, 0, 0, 0, 1]);
  });
});
