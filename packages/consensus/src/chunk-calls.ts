// chunk_scores.tsv — beyond the original tool: one row per chunk of every record, with where the chunk lies on
// its record (the chunk layout the run cut it with), so per-chunk scores can be drawn along a genome.
//
// A chunk's call follows the original's per-chunk consensus (best virus score ≥ best others score over its
// frames, ties → virus), plus a third state the original leaves implicit: a chunk with no stop-free frame has
// no row in prediction_results_highestscore.csv and carries no evidence either way, so it is `unscored`.

import { formatFloat32 } from './format-float32.js';

export const CHUNK_SCORES_FILE = 'chunk_scores.tsv';
export const CHUNK_SCORES_HEADER = 'Sequence_ID\tchunk_id\tstart\tend\tscored_frames\tbest_virus_score\tbest_frame\tcall';

export type ChunkCallLabel = 'virus' | 'others' | 'unscored';

/** Half-open `[start, end)` of a chunk on its record, 0-based (sixframe's `chunkLayout` gives these). */
export interface ChunkInterval {
  start: number;
  end: number;
}

export interface ChunkCall {
  /** `{record id}_chunk_{k}`, as in the original's files (k 1-based). */
  id: string;
  /** 1-based inclusive coordinates on the record; undefined when the chunk layout is not known. */
  start?: number;
  end?: number;
  /** Frames of the chunk that were scored (its stop-free frames). */
  frames: number;
  /** Highest virus score (score2) over the chunk's frames; NaN when unscored. */
  bestVirusScore: number;
  /** Frame suffix (F1..R3) of that score's first frame; '' when unscored. */
  bestFrame: string;
  call: ChunkCallLabel;
}

/** One input record's chunks in order; `length` known when the record was declared with its chunk layout. */
export interface RecordCalls extends RecordFacts {
  id: string;
  length?: number;
  chunks: ChunkCall[];
}

/** What the reader knew of a declared record beyond its chunks (for sequence_summary.tsv). */
export interface RecordFacts {
  /** Bases that are N or n (undefined when not counted). */
  nBases?: number;
  /** Not run: shorter than the run's minimum length (it has no chunks then). */
  skipped?: boolean;
}

/** Chunk call from the chunk's frame count and its best others / virus scores (the original's consensus rule). */
export function chunkCall(frames: number, maxScore1: number, maxScore2: number): ChunkCallLabel {
  if (frames === 0) return 'unscored';
  return maxScore2 >= maxScore1 ? 'virus' : 'others';
}

/** The chunk_scores.tsv rows of one record (no header); the record must carry its chunk layout. */
export function formatChunkScores(record: RecordCalls): string {
  let text = '';
  for (const c of record.chunks) {
    if (c.start === undefined || c.end === undefined) throw new Error(`chunk_scores.tsv: chunk ${c.id} has no coordinates (record declared without its chunk layout)`);
    const score = c.frames > 0 && !Number.isNaN(c.bestVirusScore) ? formatFloat32(c.bestVirusScore) : '';
    text += `${record.id}\t${c.id}\t${c.start}\t${c.end}\t${c.frames}\t${score}\t${c.bestFrame}\t${c.call}\n`;
  }
  return text;
}
