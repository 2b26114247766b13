// What report.html shows, gathered one finished record at a time: from the prediction writer as a run goes (so the
// report is written at the end without reading the run's files back), or from a finished run's files read in step
// (report-data.ts). Memory is bounded by the caps, not by the run: the counts and the histogram, the table's
// candidates (at most twice `maxRecords`) and their tracks (pruned to the point budget whenever they outgrow it).

export const HISTOGRAM_BINS = 50;

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

/** A record that may enter the table: its input order, its track's share of the point budget, its track (while it may keep one). */
type Candidate = ReportRecord & { order: number; points: number; track?: ReportTrack };

const num = (s: string | undefined) => (s === undefined || s === '' ? NaN : Number(s));

/** Most viral first: regions, then viral chunks, then the best score; input order on ties. */
function moreViral(a: Candidate, b: Candidate): number {
  return b.regions - a.regions || b.viral - a.viral || (b.best || 0) - (a.best || 0) || a.order - b.order;
}

export class ReportCollector {
  private readonly maxRecords: number;
  private readonly maxTrackPoints: number;
  private readonly maxTotalTrackPoints: number;
  private readonly recordCalls: Record<string, number> = { virus: 0, others: 0, unscored: 0 };
  private readonly chunkCalls: Record<string, number> = { virus: 0, others: 0, unscored: 0 };
  private readonly histogram = { virus: new Array<number>(HISTOGRAM_BINS).fill(0), others: new Array<number>(HISTOGRAM_BINS).fill(0) };
  private records = 0;
  private chunks = 0;
  private regions = 0;
  private viralBases = 0;
  private kept: Candidate[] = [];
  /** Once the candidates were pruned, the least viral kept: a record not more viral than it can never enter the table. */
  private worstKept: Candidate | undefined;
  /** Track points held by the candidates. */
  private trackPoints = 0;

  constructor(options: ReportOptions = {}) {
    this.maxRecords = options.maxRecords ?? 5000;
    this.maxTrackPoints = options.maxTrackPoints ?? 2000;
    this.maxTotalTrackPoints = options.maxTotalTrackPoints ?? 200_000;
  }

  /**
   * One record, in input order: its sequence_summary.tsv line and its chunk_scores.tsv and viral_regions.tsv lines,
   * as the files hold them (no line ends).
   */
  addRecord(summaryLine: string, chunkLines: readonly string[], regionLines: readonly string[]): void {
    const f = summaryLine.split('\t');
    const r: Candidate = {
      id: f[0], length: num(f[1]), chunks: num(f[2]), scored: num(f[3]), viral: num(f[4]), fraction: num(f[5]),
      regions: num(f[6]) || 0, viralBases: num(f[7]) || 0, best: num(f[8]), call: f[9], order: this.records,
      points: Math.min(num(f[2]), this.maxTrackPoints),
    };
    this.records++;
    this.recordCalls[r.call] = (this.recordCalls[r.call] ?? 0) + 1;
    this.regions += r.regions;
    this.viralBases += r.viralBases;
    const candidate = !(this.worstKept && moreViral(r, this.worstKept) > 0);
    const points = r.points;
    // The track of a candidate: each bin the best virus score of its chunks ×1000 (−1: all unscored), viral if any is.
    const track: ReportTrack | undefined = candidate && points > 0
      ? { start: [], end: [], score: [], viral: [], chunksPerBin: Math.ceil(r.chunks / points), regions: [] }
      : undefined;
    let inBin = 0;
    for (const line of chunkLines) {
      // Four of the eight fields, cut where the tabs are: a split made eight strings a chunk, most of this loop's
      // time on a run of 10^6 chunks.
      const fields = tabFields(line, 7);
      const call = field(line, fields, 7) as string;
      this.chunks++;
      this.chunkCalls[call] = (this.chunkCalls[call] ?? 0) + 1;
      const score = num(field(line, fields, 5));
      if (call !== 'unscored' && !Number.isNaN(score)) {
        const bin = Math.min(HISTOGRAM_BINS - 1, Math.max(0, Math.floor(score * HISTOGRAM_BINS)));
        (call === 'virus' ? this.histogram.virus : this.histogram.others)[bin]++;
      }
      if (!track) continue;
      const s = call === 'unscored' || Number.isNaN(score) ? -1 : Math.round(score * 1000);
      const v = call === 'virus' ? 1 : 0;
      if (inBin === 0) {
        track.start.push(num(field(line, fields, 2)));
        track.end.push(num(field(line, fields, 3)));
        track.score.push(s);
        track.viral.push(v);
      } else {
        const i = track.score.length - 1;
        track.end[i] = Math.max(track.end[i], num(field(line, fields, 3)));
        if (s > track.score[i]) track.score[i] = s;
        if (v) track.viral[i] = 1;
      }
      inBin = (inBin + 1) % track.chunksPerBin;
    }
    if (!candidate) return;
    if (track) {
      for (const line of regionLines) {
        const g = line.split('\t');
        track.regions.push([num(g[1]), num(g[2])]);
      }
      r.track = track;
      this.trackPoints += track.score.length;
    }
    this.kept.push(r);
    if (this.kept.length >= 2 * this.maxRecords || this.trackPoints > 2 * this.maxTotalTrackPoints) this.prune();
  }

  /** The report's data, with the run's summary (run_summary.json). */
  data(run: Record<string, unknown>): ReportData {
    this.prune();
    const tracks: Record<string, ReportTrack> = {};
    // In input order, as the records came (the page's data is the same bytes however the records were gathered).
    for (const r of [...this.kept].sort((a, b) => a.order - b.order)) if (r.track) tracks[r.id] = r.track;
    return {
      run,
      counts: { records: this.records, recordCalls: this.recordCalls, chunks: this.chunks, chunkCalls: this.chunkCalls, regions: this.regions, viralBases: this.viralBases },
      histogram: this.histogram,
      records: this.kept.map(({ order: _, points: __, track: ___, ...r }) => r),
      tracks,
    };
  }

  /**
   * Keeps the `maxRecords` most viral, and tracks only while the point budget lasts in table order: the first track
   * that does not fit ends them (a record past that point only moves further back as more viral ones arrive).
   */
  private prune(): void {
    this.kept = this.kept.sort(moreViral).slice(0, this.maxRecords);
    if (this.kept.length === this.maxRecords) this.worstKept = this.kept[this.kept.length - 1];
    let budget = this.maxTotalTrackPoints;
    let fits = true;
    this.trackPoints = 0;
    for (const r of this.kept) {
      // Charged its nominal share (min(chunks, maxTrackPoints)), track or not: the walk is the same at every prune.
      if (fits && r.points <= budget) {
        budget -= r.points;
        this.trackPoints += r.track?.score.length ?? 0;
      } else {
        fits = false;
        delete r.track;
      }
    }
  }
}

/** Where fields 0..last of a tab-separated line end (tabFields' answer; reused, so read it before the next call). */
const fieldEnds = new Int32Array(16);

/** Fills fieldEnds for fields 0..`last` of `line` (−1 for a field the line does not have); returns it. */
function tabFields(line: string, last: number): Int32Array {
  let start = 0;
  for (let k = 0; k <= last; k++) {
    if (start < 0) {
      fieldEnds[k] = -1;
      continue;
    }
    const tab = line.indexOf('\t', start);
    fieldEnds[k] = tab < 0 ? line.length : tab;
    start = tab < 0 ? -1 : tab + 1;
  }
  return fieldEnds;
}

/** Field `k` of `line` as `line.split('\t')[k]` gives it (undefined past the last field), from tabFields' ends. */
function field(line: string, ends: Int32Array, k: number): string | undefined {
  if (ends[k] < 0) return undefined;
  return line.slice(k === 0 ? 0 : ends[k - 1] + 1, ends[k]);
}
