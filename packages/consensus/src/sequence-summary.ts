// sequence_summary.tsv — beyond the original tool, whose consensus stops at chunks: one row per ORIGINAL
// input sequence (the id before the last "_chunk_"), in first-appearance (= input) order.
//
// Columns: Sequence_ID, chunks (chunks of the sequence: those with at least one scored frame, or the
// declared total when the pipeline told us how many chunks it cut, so chunks without any open reading
// frame count as not viral), viral_chunks (chunks whose consensus Is_Virus is True), fraction_viral
// (viral_chunks / chunks, 4 decimals), best_virus_score (max score2 over every frame of the sequence,
// numpy float32 format; an empty field when no frame of the sequence was scored — no stop-free frame), call.
// Call rule: 'virus' when at least half of the chunks are viral (viral_chunks·2 ≥ chunks, chunks > 0) —
// the same tie-goes-to-virus preference as the per-chunk rule; otherwise 'others'.

import type { ChunkConsensus } from './consensus.js';
import { formatFloat32 } from './format-float32.js';

export const SEQUENCE_SUMMARY_FILE = 'sequence_summary.tsv';
export const SEQUENCE_SUMMARY_HEADER = 'Sequence_ID\tchunks\tviral_chunks\tfraction_viral\tbest_virus_score\tcall';

const CHUNK_MARK = '_chunk_';

/** The input sequence a chunk key (or frame id) came from: everything before the last "_chunk_". */
export function originalSequenceId(chunkKey: string): string {
  const at = chunkKey.lastIndexOf(CHUNK_MARK);
  return at < 0 ? chunkKey : chunkKey.slice(0, at);
}

export interface SequenceSummary {
  sequenceId: string;
  chunks: number;
  viralChunks: number;
  fractionViral: number;
  /** NaN when no frame of the sequence was scored; written as an empty field. */
  bestVirusScore: number;
  call: 'virus' | 'others';
}

/** Sequence call from chunk counts (see the file comment). */
export function sequenceCall(viralChunks: number, chunks: number): 'virus' | 'others' {
  return chunks > 0 && viralChunks * 2 >= chunks ? 'virus' : 'others';
}

/**
 * Summaries from per-chunk consensus groups in first-appearance order. `declaredChunks` (sequence id →
 * number of chunks cut) adds sequences and chunks that produced no scored frame.
 */
export function summarizeSequences(
  groups: Iterable<ChunkConsensus>,
  declaredChunks?: ReadonlyMap<string, number>,
): SequenceSummary[] {
  const bySequence = new Map<string, { scored: number; viral: number; best: number }>();
  if (declaredChunks) for (const id of declaredChunks.keys()) bySequence.set(id, { scored: 0, viral: 0, best: NaN });
  for (const g of groups) {
    const id = originalSequenceId(g.key);
    let s = bySequence.get(id);
    if (!s) bySequence.set(id, (s = { scored: 0, viral: 0, best: NaN }));
    s.scored++;
    if (g.isVirus) s.viral++;
    if (!Number.isNaN(g.maxScore2) && !(g.maxScore2 <= s.best)) s.best = g.maxScore2;
  }
  const out: SequenceSummary[] = [];
  for (const [sequenceId, s] of bySequence) {
    const chunks = Math.max(s.scored, declaredChunks?.get(sequenceId) ?? 0);
    out.push({
      sequenceId,
      chunks,
      viralChunks: s.viral,
      fractionViral: chunks > 0 ? s.viral / chunks : 0,
      bestVirusScore: s.best,
      call: sequenceCall(s.viral, chunks),
    });
  }
  return out;
}

export function formatSequenceSummary(rows: Iterable<SequenceSummary>): string {
  const parts = [`${SEQUENCE_SUMMARY_HEADER}\n`];
  for (const r of rows) {
    parts.push(
      `${r.sequenceId}\t${r.chunks}\t${r.viralChunks}\t${r.fractionViral.toFixed(4)}\t${Number.isNaN(r.bestVirusScore) ? '' : formatFloat32(r.bestVirusScore)}\t${r.call}\n`,
    );
  }
  return parts.join('');
}
