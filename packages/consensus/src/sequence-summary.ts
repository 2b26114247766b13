// sequence_summary.tsv — beyond the original tool, whose consensus stops at chunks: one row per ORIGINAL
// input record, in input order.
//
// The call counts evidence: a chunk without a stop-free frame was never scored and says nothing either way, so
// it is left out of the fraction (phage lambda has a stop-free frame in only 36 of its 98 chunks of 500 bp).
// Columns: Sequence_ID, length (bases; empty when the chunk layout is unknown), chunks (chunks the record was
// cut into; without a declared layout or count, those that had frames), scored_chunks (with at least one scored
// frame), viral_chunks (scored chunks whose consensus Is_Virus is True), fraction_viral (viral_chunks /
// scored_chunks, 4 decimals; empty when nothing was scored), regions (kept viral regions) and viral_bases (bases
// inside them; both empty without a chunk layout), best_virus_score (max score2 over the record's frames, numpy
// float32 format; empty when nothing was scored), call, fraction_n (share of the record's bases that are N or n,
// 4 decimals; empty when not counted; last, so readers of the first ten columns read on).
// Call rule: `skipped` when the run skipped the record (shorter than --min-length); `unscored` when no chunk was scored; `virus` when at least half of the scored chunks are viral
// (2·viral_chunks ≥ scored_chunks — the same tie-goes-to-virus preference as the per-chunk rule); else `others`.

import type { RecordCalls } from './chunk-calls.js';
import { formatFloat32 } from './format-float32.js';
import { viralBases, type ViralRegion } from './viral-regions.js';

export const SEQUENCE_SUMMARY_FILE = 'sequence_summary.tsv';
export const SEQUENCE_SUMMARY_HEADER =
  'Sequence_ID\tlength\tchunks\tscored_chunks\tviral_chunks\tfraction_viral\tregions\tviral_bases\tbest_virus_score\tcall\tfraction_n';
/** The header before the `fraction_n` column (runs of earlier versions): the first ten columns are the same. */
export const SEQUENCE_SUMMARY_HEADER_V1 = SEQUENCE_SUMMARY_HEADER.slice(0, SEQUENCE_SUMMARY_HEADER.lastIndexOf('\t'));

/** A record whose share of N bases is above this is "mostly N": predict warns about it. */
export const MOSTLY_N_SHARE = 0.5;

const CHUNK_MARK = '_chunk_';

/** The input sequence a chunk key (or frame id) came from: everything before the last "_chunk_". */
export function originalSequenceId(chunkKey: string): string {
  const at = chunkKey.lastIndexOf(CHUNK_MARK);
  return at < 0 ? chunkKey : chunkKey.slice(0, at);
}

export type SequenceCall = 'virus' | 'others' | 'unscored' | 'skipped';

export interface SequenceSummary {
  sequenceId: string;
  /** Undefined when the record's chunk layout is unknown. */
  length?: number;
  chunks: number;
  scoredChunks: number;
  viralChunks: number;
  /** viralChunks / scoredChunks; NaN when nothing was scored. */
  fractionViral: number;
  /** Undefined when regions were not computed (no chunk layout). */
  regions?: number;
  viralBases?: number;
  /** NaN when no frame of the sequence was scored; written as an empty field. */
  bestVirusScore: number;
  call: SequenceCall;
  /** Share of the record's bases that are N (n); undefined when not counted. */
  fractionN?: number;
}

/** Sequence call from chunk counts (see the file comment). */
export function sequenceCall(viralChunks: number, scoredChunks: number): SequenceCall {
  if (scoredChunks === 0) return 'unscored';
  return viralChunks * 2 >= scoredChunks ? 'virus' : 'others';
}

/** The summary of one record from its chunk calls and, when computed, its viral regions. */
export function summarizeRecord(record: RecordCalls, regions?: readonly ViralRegion[]): SequenceSummary {
  let scored = 0;
  let viral = 0;
  let best = NaN;
  for (const c of record.chunks) {
    if (c.call === 'unscored') continue;
    scored++;
    if (c.call === 'virus') viral++;
    if (!Number.isNaN(c.bestVirusScore) && !(c.bestVirusScore <= best)) best = c.bestVirusScore;
  }
  return {
    sequenceId: record.id,
    ...(record.length !== undefined ? { length: record.length } : {}),
    chunks: record.chunks.length,
    scoredChunks: scored,
    viralChunks: viral,
    fractionViral: scored > 0 ? viral / scored : NaN,
    ...(regions ? { regions: regions.length, viralBases: viralBases(regions) } : {}),
    bestVirusScore: best,
    call: record.skipped ? 'skipped' : sequenceCall(viral, scored),
    ...(record.nBases !== undefined && record.length ? { fractionN: record.nBases / record.length } : {}),
  };
}

const field = (x: number | undefined) => (x === undefined ? '' : String(x));

/** sequence_summary.tsv rows (no header). */
export function formatSequenceSummary(rows: Iterable<SequenceSummary>): string {
  let text = '';
  for (const r of rows) {
    const fraction = Number.isNaN(r.fractionViral) ? '' : r.fractionViral.toFixed(4);
    const best = Number.isNaN(r.bestVirusScore) ? '' : formatFloat32(r.bestVirusScore);
    text +=
      `${r.sequenceId}\t${field(r.length)}\t${r.chunks}\t${r.scoredChunks}\t${r.viralChunks}\t${fraction}\t` +
      `${field(r.regions)}\t${field(r.viralBases)}\t${best}\t${r.call}\t${r.fractionN === undefined ? '' : r.fractionN.toFixed(4)}\n`;
  }
  return text;
}
