// What report.html shows, read from a finished run folder: run_summary.json and the per-record files
// (sequence_summary.tsv, chunk_scores.tsv, viral_regions.tsv). Files are streamed line by line; memory is bounded by
// the caps below, not by the run (a run of millions of frames gives a report of a few MB that opens in a second):
// the table keeps the `maxRecords` most viral records (a note says how many there are), tracks are kept for those
// records only, each downsampled to at most `maxTrackPoints` bins (the best score of the chunks in a bin), and the
// score histogram counts every scored chunk.

import { createReadStream, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHUNK_SCORES_FILE, CHUNK_SCORES_HEADER } from '../chunk-calls.js';
import { SEQUENCE_SUMMARY_FILE, SEQUENCE_SUMMARY_HEADER, SEQUENCE_SUMMARY_HEADER_V1 } from '../sequence-summary.js';
import { VIRAL_REGIONS_FILE, VIRAL_REGIONS_HEADER } from '../viral-regions.js';

export const RUN_SUMMARY_FILE = 'run_summary.json';
export const HISTOGRAM_BINS = 50;

/** A run folder the report cannot be made from (not a finished run, or one made before the per-chunk files). */
export class ReportInputError extends Error {
  override readonly name = 'ReportInputError';
  /** Bad input (the CLI's exit 2), as FeatureFileError. */
  readonly code = 'BAD_INPUT';
}

export interface ReportOptions {
  /** Records in the table (default 5,000; the most viral first when there are more). */
  maxRecords?: number;
  /** Points of one record's track (default 2,000). */
  maxTrackPoints?: number;
  /** Points of all tracks together (default 200,000); records past it get no track. */
  maxTotalTrackPoints?: number;
}

/** One row of the table: sequence_summary.tsv's fields, numbers parsed (NaN for empty fields). */
export interface ReportRecord {
  id: string;
  length: number;
  chunks: number;
  scored: number;
  viral: number;
  fraction: number;
  regions: number;
  viralBases: number;
  best: number;
  call: string;
}

/**
 * One record's chunk scores along the sequence: bin i covers bases [start[i], end[i]] (1-based), its score is
 * the best virus score of its scored chunks ×1000 rounded, or -1 when every chunk in it is unscored; `call` 1
 * when a chunk in it is viral, 0 otherwise. `chunksPerBin` > 1 when downsampled.
 */
export interface ReportTrack {
  start: number[];
  end: number[];
  score: number[];
  viral: number[];
  chunksPerBin: number;
  /** Regions as [start, end] pairs (1-based inclusive). */
  regions: [number, number][];
}

export interface ReportData {
  run: Record<string, unknown>;
  counts: {
    records: number;
    recordCalls: Record<string, number>;
    chunks: number;
    chunkCalls: Record<string, number>;
    regions: number;
    viralBases: number;
  };
  /** Scored chunks' best virus scores in HISTOGRAM_BINS bins over [0, 1]: viral and non-viral chunks apart. */
  histogram: { virus: number[]; others: number[] };
  records: ReportRecord[];
  /** Tracks by record id (the table's records, while the point budget lasts). */
  tracks: Record<string, ReportTrack>;
}

/**
 * Calls `onLine` with every non-empty line of `file` after its header (one of `header`, else ReportInputError).
 * The file is read a megabyte at a time and split here: one await per chunk, not per line (a 1M-frame run of reads
 * has ~800,000 lines a file; line by line through readline, reading them took most of the report's 2.5 s).
 */
async function forEachLine(dir: string, file: string, header: string | readonly string[], onLine: (line: string) => void): Promise<void> {
  let headerSeen = false;
  const take = (raw: string) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '') return;
    if (headerSeen) onLine(line);
    else {
      expectHeader(dir, file, header, line);
      headerSeen = true;
    }
  };
  let rest = '';
  for await (const chunk of createReadStream(join(dir, file), { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const parts = (rest + (chunk as string)).split('\n');
    rest = parts.pop()!;
    for (const part of parts) take(part);
  }
  take(rest);
  if (!headerSeen) expectHeader(dir, file, header, undefined);
}

const num = (s: string | undefined) => (s === undefined || s === '' ? NaN : Number(s));

function expectHeader(dir: string, file: string, header: string | readonly string[], first: string | undefined): void {
  if (first === undefined || !(typeof header === 'string' ? [header] : header).includes(first)) {
    throw new ReportInputError(
      `${join(dir, file)}: not the ${file} this version writes (its first line is ${first === undefined ? 'missing' : `'${first.slice(0, 80)}'`}); ` +
        'the run was made by an older virnucpro: run predict again (with --resume, the checkpoints are reused)',
    );
  }
}

/** Most viral first: regions, then viral chunks, then the best score; input order on ties. */
function moreViral(a: ReportRecord & { order: number }, b: ReportRecord & { order: number }): number {
  return b.regions - a.regions || b.viral - a.viral || (b.best || 0) - (a.best || 0) || a.order - b.order;
}

export async function readReportData(runDir: string, options: ReportOptions = {}): Promise<ReportData> {
  const maxRecords = options.maxRecords ?? 5000;
  const maxTrackPoints = options.maxTrackPoints ?? 2000;
  let trackBudget = options.maxTotalTrackPoints ?? 200_000;
  const summaryPath = join(runDir, RUN_SUMMARY_FILE);
  if (!existsSync(runDir)) throw new ReportInputError(`${runDir}: no such folder`);
  if (!existsSync(summaryPath)) throw new ReportInputError(`${runDir} is not a finished run: it has no ${RUN_SUMMARY_FILE}`);
  let run: Record<string, unknown>;
  try {
    run = JSON.parse(await readFile(summaryPath, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new ReportInputError(`${summaryPath}: not readable JSON (${(err as Error).message})`);
  }
  for (const file of [SEQUENCE_SUMMARY_FILE, CHUNK_SCORES_FILE, VIRAL_REGIONS_FILE]) {
    if (!existsSync(join(runDir, file))) {
      throw new ReportInputError(
        `${runDir} has no ${file}: the run was made by an older virnucpro (or without it); run predict again (with --resume, the checkpoints are reused)`,
      );
    }
  }

  // 1. sequence_summary.tsv: counts, and the table's records (a bounded selection of the most viral).
  const recordCalls: Record<string, number> = { virus: 0, others: 0, unscored: 0 };
  let records = 0;
  let regions = 0;
  let viralBases = 0;
  let kept: (ReportRecord & { order: number })[] = [];
  // Once the selection has been trimmed, its least viral record: one that is not more viral cannot enter the table
  // (maxRecords better ones are kept already), so it is not kept or sorted at all (most records of a large run).
  let worstKept: (ReportRecord & { order: number }) | undefined;
  // Runs made before the fraction_n column have the same first ten columns.
  await forEachLine(runDir, SEQUENCE_SUMMARY_FILE, [SEQUENCE_SUMMARY_HEADER, SEQUENCE_SUMMARY_HEADER_V1], (line) => {
    const f = line.split('\t');
    const r = {
      id: f[0], length: num(f[1]), chunks: num(f[2]), scored: num(f[3]), viral: num(f[4]), fraction: num(f[5]),
      regions: num(f[6]) || 0, viralBases: num(f[7]) || 0, best: num(f[8]), call: f[9], order: records,
    };
    records++;
    recordCalls[r.call] = (recordCalls[r.call] ?? 0) + 1;
    regions += r.regions;
    viralBases += r.viralBases;
    if (worstKept && moreViral(r, worstKept) > 0) return;
    kept.push(r);
    // Keep the selection bounded: trim back to maxRecords when it doubles.
    if (kept.length >= 2 * maxRecords) {
      kept = kept.sort(moreViral).slice(0, maxRecords);
      worstKept = kept[kept.length - 1];
    }
  });
  kept = kept.sort(moreViral).slice(0, maxRecords);
  const chosen = new Set(kept.map((r) => r.id));
  // Tracks in table order while the budget lasts.
  const budgetOf = new Map<string, number>();
  for (const r of kept) {
    const points = Math.min(r.chunks, maxTrackPoints);
    if (points > trackBudget) break;
    trackBudget -= points;
    budgetOf.set(r.id, points);
  }

  // 2. chunk_scores.tsv: the histogram (every scored chunk) and the chosen records' tracks.
  const histogram = { virus: new Array<number>(HISTOGRAM_BINS).fill(0), others: new Array<number>(HISTOGRAM_BINS).fill(0) };
  const chunkCalls: Record<string, number> = { virus: 0, others: 0, unscored: 0 };
  let chunks = 0;
  const tracks: Record<string, ReportTrack> = {};
  const chunksOf = new Map(kept.map((r) => [r.id, r.chunks]));
  {
    let track: ReportTrack | undefined;
    let trackId = '';
    let inBin = 0;
    await forEachLine(runDir, CHUNK_SCORES_FILE, CHUNK_SCORES_HEADER, (line) => {
      const f = line.split('\t');
      const call = f[7];
      chunks++;
      chunkCalls[call] = (chunkCalls[call] ?? 0) + 1;
      const score = num(f[5]);
      if (call !== 'unscored' && !Number.isNaN(score)) {
        const bin = Math.min(HISTOGRAM_BINS - 1, Math.max(0, Math.floor(score * HISTOGRAM_BINS)));
        (call === 'virus' ? histogram.virus : histogram.others)[bin]++;
      }
      const id = f[0];
      if (!budgetOf.has(id)) return;
      if (id !== trackId) {
        trackId = id;
        const total = chunksOf.get(id)!;
        track = tracks[id] = { start: [], end: [], score: [], viral: [], chunksPerBin: Math.ceil(total / budgetOf.get(id)!), regions: [] };
        inBin = 0;
      }
      const t = track!;
      const s = call === 'unscored' || Number.isNaN(score) ? -1 : Math.round(score * 1000);
      const v = call === 'virus' ? 1 : 0;
      if (inBin === 0) {
        t.start.push(num(f[2]));
        t.end.push(num(f[3]));
        t.score.push(s);
        t.viral.push(v);
      } else {
        const i = t.score.length - 1;
        t.end[i] = Math.max(t.end[i], num(f[3]));
        if (s > t.score[i]) t.score[i] = s;
        if (v) t.viral[i] = 1;
      }
      inBin = (inBin + 1) % t.chunksPerBin;
    });
  }
  for (const id of chosen) if (!budgetOf.has(id)) delete tracks[id];

  // 3. viral_regions.tsv: the shaded spans of the tracks.
  await forEachLine(runDir, VIRAL_REGIONS_FILE, VIRAL_REGIONS_HEADER, (line) => {
    const f = line.split('\t');
    tracks[f[0]]?.regions.push([num(f[1]), num(f[2])]);
  });

  return {
    run,
    counts: { records, recordCalls, chunks, chunkCalls, regions, viralBases },
    histogram,
    records: kept.map(({ order: _, ...r }) => r),
    tracks,
  };
}
