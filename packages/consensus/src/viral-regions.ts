// viral_regions.tsv / viral_regions.bed — where on a record the viral chunks lie, joined into regions.
//
// Rule (docs/usage.md, "Viral regions"): walk a record's chunks in order. Each chunk is viral, non-viral
// (scored, not viral) or unscored (no stop-free frame: no evidence). Two consecutive viral chunks belong to the
// same region when at most `gap` non-viral chunks lie between them AND the bases between them (from the end of
// the first to the start of the second; 0 when they touch or overlap) are at most `maxGapBases`. Unscored chunks
// neither break a region nor count towards `gap`. A region runs from its first viral chunk's start to its last
// one's end, and is kept when it holds at least `minChunks` viral chunks (1 for a record cut into one chunk).

import type { ChunkCall, RecordCalls } from './chunk-calls.js';
import { formatFloat32 } from './format-float32.js';

export const VIRAL_REGIONS_FILE = 'viral_regions.tsv';
export const VIRAL_REGIONS_BED_FILE = 'viral_regions.bed';
export const VIRAL_REGIONS_HEADER =
  'Sequence_ID\tstart\tend\tlength\tn_chunks\tn_viral_chunks\tn_nonviral_chunks\tn_unscored_chunks\tmean_virus_score\tmax_virus_score\tfraction_of_record';

export interface RegionOptions {
  /** Non-viral chunks allowed between two joined viral chunks (`--region-gap`, default 1). */
  gap: number;
  /** Bases allowed between two joined viral chunks (`--region-max-gap`, default 5000). */
  maxGapBases: number;
  /** Viral chunks a region needs to be kept (`--min-region-chunks`, default 2; 1 for single-chunk records). */
  minChunks: number;
}

export const DEFAULT_REGION_OPTIONS: Readonly<RegionOptions> = Object.freeze({ gap: 1, maxGapBases: 5000, minChunks: 2 });

export interface ViralRegion {
  sequenceId: string;
  /** 1-based inclusive. */
  start: number;
  end: number;
  length: number;
  /** Chunks from the region's first viral chunk to its last, of each kind. */
  chunks: number;
  viralChunks: number;
  nonviralChunks: number;
  unscoredChunks: number;
  /** Mean and max of the best virus scores of the region's scored chunks (NaN scores skipped; NaN if none). */
  meanVirusScore: number;
  maxVirusScore: number;
  /** length / record length. */
  fractionOfRecord: number;
}

/** Checks user-given region options (whole numbers ≥ 0; minChunks ≥ 1); throws a RangeError naming the bad one. */
export function regionOptions(options: Partial<RegionOptions> = {}): RegionOptions {
  const o = { ...DEFAULT_REGION_OPTIONS, ...options };
  for (const [name, value, min] of [['gap', o.gap, 0], ['maxGapBases', o.maxGapBases, 0], ['minChunks', o.minChunks, 1]] as const) {
    if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`region option ${name} must be a whole number ≥ ${min}, got ${value}`);
  }
  return o;
}

/** The kept viral regions of one record, in order. The record must carry its chunk layout (start/end). */
export function findViralRegions(record: RecordCalls, options: Partial<RegionOptions> = {}): ViralRegion[] {
  const { gap, maxGapBases, minChunks } = regionOptions(options);
  const chunks = record.chunks;
  const length = record.length;
  if (length === undefined) throw new Error(`viral regions: record ${record.id} has no chunk layout`);
  const needed = chunks.length === 1 ? 1 : minChunks;
  const regions: ViralRegion[] = [];
  let first = -1; // first viral chunk of the open region
  let last = -1; // its last viral chunk so far
  let nonviralSince = 0; // non-viral chunks after `last`
  const close = () => {
    if (first >= 0) {
      const region = describe(record.id, length, chunks, first, last);
      if (region.viralChunks >= needed) regions.push(region);
    }
    first = -1;
  };
  for (let i = 0; i < chunks.length; i++) {
    const call = chunks[i].call;
    if (call === 'others') nonviralSince++;
    if (call !== 'virus') continue;
    const joins = first >= 0 && nonviralSince <= gap && basesBetween(chunks[last], chunks[i]) <= maxGapBases;
    if (!joins) {
      close();
      first = i;
    }
    last = i;
    nonviralSince = 0;
  }
  close();
  return regions;
}

function basesBetween(a: ChunkCall, b: ChunkCall): number {
  return Math.max(0, start(b) - end(a) - 1);
}

function start(c: ChunkCall): number {
  if (c.start === undefined) throw new Error(`viral regions: chunk ${c.id} has no coordinates`);
  return c.start;
}

function end(c: ChunkCall): number {
  if (c.end === undefined) throw new Error(`viral regions: chunk ${c.id} has no coordinates`);
  return c.end;
}

function describe(sequenceId: string, recordLength: number, chunks: readonly ChunkCall[], first: number, last: number): ViralRegion {
  let viralChunks = 0;
  let nonviralChunks = 0;
  let unscoredChunks = 0;
  let sum = 0;
  let scores = 0;
  let max = NaN;
  for (let i = first; i <= last; i++) {
    const c = chunks[i];
    if (c.call === 'virus') viralChunks++;
    else if (c.call === 'others') nonviralChunks++;
    else unscoredChunks++;
    if (c.call !== 'unscored' && !Number.isNaN(c.bestVirusScore)) {
      sum += c.bestVirusScore;
      scores++;
      if (!(c.bestVirusScore <= max)) max = c.bestVirusScore;
    }
  }
  const s = start(chunks[first]);
  const e = end(chunks[last]);
  return {
    sequenceId,
    start: s,
    end: e,
    length: e - s + 1,
    chunks: last - first + 1,
    viralChunks,
    nonviralChunks,
    unscoredChunks,
    meanVirusScore: scores > 0 ? sum / scores : NaN,
    maxVirusScore: max,
    fractionOfRecord: (e - s + 1) / recordLength,
  };
}

/** Bases of a record inside at least one region (regions of one record, in order; overlaps counted once). */
export function viralBases(regions: readonly ViralRegion[]): number {
  let bases = 0;
  let coveredTo = 0; // last base counted (1-based)
  for (const r of regions) {
    const from = Math.max(r.start, coveredTo + 1);
    if (r.end >= from) bases += r.end - from + 1;
    coveredTo = Math.max(coveredTo, r.end);
  }
  return bases;
}

const score = (x: number) => (Number.isNaN(x) ? '' : formatFloat32(x));

/** viral_regions.tsv rows (no header). Scores in numpy float32 format (the mean rounded to float32 first). */
export function formatRegionsTsv(regions: Iterable<ViralRegion>): string {
  let text = '';
  for (const r of regions) {
    text +=
      `${r.sequenceId}\t${r.start}\t${r.end}\t${r.length}\t${r.chunks}\t${r.viralChunks}\t${r.nonviralChunks}\t${r.unscoredChunks}\t` +
      `${score(r.meanVirusScore)}\t${score(r.maxVirusScore)}\t${r.fractionOfRecord.toFixed(4)}\n`;
  }
  return text;
}

/**
 * viral_regions.bed rows (BED6, no header): 0-based half-open coordinates, name `{record}_region_{i}` (i from 1
 * within the record), score = round(1000 × mean virus score) (0–1000, what browsers shade by), strand `.`.
 */
export function formatRegionsBed(regions: readonly ViralRegion[]): string {
  let text = '';
  regions.forEach((r, i) => {
    const bedScore = Number.isNaN(r.meanVirusScore) ? 0 : Math.min(1000, Math.max(0, Math.round(1000 * r.meanVirusScore)));
    text += `${r.sequenceId}\t${r.start - 1}\t${r.end}\t${r.sequenceId}_region_${i + 1}\t${bedScore}\t.\n`;
  });
  return text;
}
