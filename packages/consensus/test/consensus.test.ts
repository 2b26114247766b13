import { describe, expect, it } from 'vitest';
import { compareCodePoints, consensusFromRows, consensusKey, originalSequenceId, predictionLabel, summarizeRecord } from '../src/index.js';
import { ChunkMaxima, formatConsensus } from '../src/consensus.js';
import { formatSequenceSummary, sequenceCall } from '../src/sequence-summary.js';

describe('consensusKey', () => {
  it('drops the last two characters like Python str[:-2]', () => {
    expect(consensusKey('seq_chunk_1F1')).toBe('seq_chunk_1');
    expect(consensusKey('seq_chunk_12R3')).toBe('seq_chunk_12');
    expect(consensusKey('x')).toBe('');
    expect(consensusKey('odd_id')).toBe('odd_');
    expect(consensusKey('a😀😀')).toBe('a'); // code points, not UTF-16 units
  });
  it('frame-suffix rule strips only F1-F3/R1-R3', () => {
    expect(consensusKey('seq_chunk_1R2', 'frame-suffix')).toBe('seq_chunk_1');
    expect(consensusKey('odd_id', 'frame-suffix')).toBe('odd_id');
  });
});

describe('compareCodePoints sorts like Python', () => {
  it('orders chunk_10 before chunk_2 and astral characters after U+FFFF', () => {
    const keys = ['s_chunk_2', 's_chunk_10', 's_chunk_1', 'a\u{10000}', 'a\uffff', 'a'];
    // Python: sorted(keys) == ['a', 'a\uffff', 'a\U00010000', 's_chunk_1', 's_chunk_10', 's_chunk_2']
    expect([...keys].sort(compareCodePoints)).toEqual(['a', 'a\uffff', 'a\u{10000}', 's_chunk_1', 's_chunk_10', 's_chunk_2']);
  });
});

describe('per-chunk consensus rule', () => {
  it('is max(score2) >= max(score1) over the chunk, ties True, with rows sorted by key', () => {
    const rows = [
      { id: 's_chunk_2F1', score1: 0.6, score2: 0.4 },
      { id: 's_chunk_2R1', score1: 0.3, score2: 0.7 }, // max2 0.7 >= max1 0.6 → True
      { id: 's_chunk_10F1', score1: 0.9, score2: 0.1 },
      { id: 's_chunk_10F2', score1: 0.8, score2: 0.2 }, // False
      { id: 's_chunk_1F1', score1: 0.5, score2: 0.5 }, // tie → True
    ];
    expect(consensusFromRows(rows)).toBe('Modified_ID\tIs_Virus\ns_chunk_1\tTrue\ns_chunk_10\tFalse\ns_chunk_2\tTrue\n');
  });
  it('uses the maxima over frames, not a per-frame vote', () => {
    // Two frames say virus weakly, one says others strongly: the strongest score wins.
    const rows = [
      { id: 'q_chunk_1F1', score1: 0.45, score2: 0.55 },
      { id: 'q_chunk_1F2', score1: 0.45, score2: 0.55 },
      { id: 'q_chunk_1F3', score1: 0.9, score2: 0.1 },
    ];
    expect(consensusFromRows(rows)).toBe('Modified_ID\tIs_Virus\nq_chunk_1\tFalse\n');
  });
  it('skips NaN like pandas max; an all-NaN group is False', () => {
    const m = new ChunkMaxima();
    m.add('a_chunk_1F1', NaN, 0.2);
    m.add('a_chunk_1F2', 0.1, NaN);
    m.add('b_chunk_1F1', NaN, NaN);
    const [a, b] = m.sorted();
    expect(a.isVirus).toBe(true);
    expect(b.isVirus).toBe(false);
  });
  it('can append the max score columns', () => {
    const m = new ChunkMaxima();
    m.add('a_chunk_1F1', 0.25, 0.75);
    expect(formatConsensus(m.sorted(), { scoreColumns: true })).toBe('Modified_ID\tIs_Virus\tmax_score_0\tmax_score_1\na_chunk_1\tTrue\t0.25\t0.75\n');
  });
  it('predictionLabel: virus only if score2 > score1 as float32 (tie → others)', () => {
    expect(predictionLabel(0.5, 0.5)).toBe('others');
    expect(predictionLabel(0.4, 0.6)).toBe('virus');
    expect(predictionLabel(0.50000001, 0.5)).toBe('others'); // equal once rounded to float32
  });
});

describe('sequence summary', () => {
  const chunk = (id: string, call: 'virus' | 'others' | 'unscored', score = NaN) => ({ id, frames: call === 'unscored' ? 0 : 1, bestVirusScore: score, bestFrame: call === 'unscored' ? '' : 'F1', call });
  it('the record id is everything before the last _chunk_', () => {
    expect(originalSequenceId('my_chunk_seq_chunk_3')).toBe('my_chunk_seq');
    expect(originalSequenceId('plain')).toBe('plain');
  });
  it('counts evidence: unscored chunks are left out of the fraction; a record with none scored is unscored', () => {
    const z = summarizeRecord({ id: 'z', chunks: [chunk('z_chunk_1', 'virus', 0.8), chunk('z_chunk_2', 'unscored'), chunk('z_chunk_3', 'others', 0.4), chunk('z_chunk_4', 'unscored')] });
    expect([z.chunks, z.scoredChunks, z.viralChunks, z.fractionViral, z.call]).toEqual([4, 2, 1, 0.5, 'virus']);
    const empty = summarizeRecord({ id: 'empty', length: 300, chunks: [chunk('empty_chunk_1', 'unscored')] }, []);
    expect(empty.call).toBe('unscored');
    // No stop-free frame, no score: fraction and best_virus_score are empty fields, never `nan`.
    expect(formatSequenceSummary([z, empty])).toBe('z\t\t4\t2\t1\t0.5000\t\t\t0.8\tvirus\t\nempty\t300\t1\t0\t0\t\t0\t0\t\tunscored\t\n');
    // fraction_n (last) when the reader counted N bases; a skipped record (no chunks) is called `skipped`.
    const mostlyN = summarizeRecord({ id: 'n', length: 300, nBases: 201, chunks: [chunk('n_chunk_1', 'others', 0.1)] }, []);
    const skipped = summarizeRecord({ id: 's', length: 6, nBases: 0, skipped: true, chunks: [] }, []);
    expect(formatSequenceSummary([mostlyN, skipped])).toBe('n\t300\t1\t1\t0\t0.0000\t0\t0\t0.1\tothers\t0.6700\ns\t6\t0\t0\t0\t\t0\t0\t\tskipped\t0.0000\n');
  });
  it('call rule: at least half the scored chunks viral', () => {
    expect(sequenceCall(1, 2)).toBe('virus');
    expect(sequenceCall(1, 3)).toBe('others');
    expect(sequenceCall(0, 0)).toBe('unscored');
  });
});
