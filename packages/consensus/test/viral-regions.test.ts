// Viral regions on hand-made chunk layouts: the expected regions are worked out by hand from the rule in
// docs/usage.md ("Viral regions"), and a plain re-statement of the rule (regionsByRule, below) is checked
// against findViralRegions on random calls.
import { describe, expect, it } from 'vitest';
import { findViralRegions, formatRegionsBed, UndeclaredFrameError, type ChunkCall, type RecordCalls, type ViralRegion } from '../src/index.js';
import { formatRegionsTsv, viralBases } from '../src/viral-regions.js';
import { RecordChunksCollector } from '../src/record-chunks.js';

type Call = 'V' | 'O' | 'U';

/** VirNucPro's layout of a 2,001-bp record in 500-bp chunks (virnucpro-reference.md §1.1): 1-based inclusive. */
const L2001: [number, number][] = [[1, 500], [401, 900], [801, 1300], [1201, 1700], [1601, 2001]];

function record(calls: string, spans: [number, number][], scores?: number[], length = spans[spans.length - 1][1]): RecordCalls {
  const chunks: ChunkCall[] = [...calls].map((c, i) => {
    const call = c === 'V' ? 'virus' : c === 'O' ? 'others' : 'unscored';
    const score = call === 'unscored' ? NaN : (scores?.[i] ?? (call === 'virus' ? 0.75 : 0.25));
    return { id: `r_chunk_${i + 1}`, start: spans[i][0], end: spans[i][1], frames: call === 'unscored' ? 0 : 1, bestVirusScore: score, bestFrame: call === 'unscored' ? '' : 'F1', call };
  });
  return { id: 'r', length, chunks };
}

/** [start, end, n_chunks, viral, nonviral, unscored] of each region. */
const brief = (rs: ViralRegion[]) => rs.map((r) => [r.start, r.end, r.chunks, r.viralChunks, r.nonviralChunks, r.unscoredChunks]);

describe('findViralRegions (hand-worked layouts)', () => {
  it('joins viral chunks across one non-viral chunk (default gap 1)', () => {
    const regions = findViralRegions(record('VOVOO', L2001, [0.75, 0.25, 1, 0.5, 0.5]));
    expect(brief(regions)).toEqual([[1, 1300, 3, 2, 1, 0]]);
    // mean over the three scored chunks (0.75, 0.25, 1), max 1; 1300 of 2001 bases
    expect(formatRegionsTsv(regions)).toBe('r\t1\t1300\t1300\t3\t2\t1\t0\t0.6666667\t1.0\t0.6497\n');
    expect(formatRegionsBed(regions)).toBe('r\t0\t1300\tr_region_1\t667\t.\n');
  });

  it('two non-viral chunks break a region; single viral chunks are dropped unless minChunks is 1', () => {
    expect(findViralRegions(record('VOOVU', L2001))).toEqual([]);
    expect(brief(findViralRegions(record('VOOVU', L2001), { minChunks: 1 }))).toEqual([[1, 500, 1, 1, 0, 0], [1201, 1700, 1, 1, 0, 0]]);
    expect(brief(findViralRegions(record('VOOVV', L2001), { gap: 2 }))).toEqual([[1, 2001, 5, 3, 2, 0]]);
    expect(brief(findViralRegions(record('VOVOV', L2001), { gap: 0, minChunks: 1 }))).toHaveLength(3);
  });

  it('unscored chunks neither break nor count as non-viral, but the base cap still applies', () => {
    // chunk 1 ends at 500, chunk 4 starts at 1201: 700 bases between them
    expect(brief(findViralRegions(record('VUUVO', L2001), { gap: 0 }))).toEqual([[1, 1700, 4, 2, 0, 2]]);
    expect(brief(findViralRegions(record('VUUVO', L2001), { maxGapBases: 700 }))).toEqual([[1, 1700, 4, 2, 0, 2]]);
    expect(findViralRegions(record('VUUVO', L2001), { maxGapBases: 699 })).toEqual([]);
    // overlapping neighbours have 0 bases between them: joined even with a cap of 0
    expect(brief(findViralRegions(record('UVVUU', L2001), { maxGapBases: 0 }))).toEqual([[401, 1300, 2, 2, 0, 0]]);
  });

  it('record edges: regions start at the first chunk and end at the last one', () => {
    expect(brief(findViralRegions(record('VVOVV', L2001)))).toEqual([[1, 2001, 5, 4, 1, 0]]);
    expect(brief(findViralRegions(record('VVOOV', L2001)))).toEqual([[1, 900, 2, 2, 0, 0]]);
    expect(brief(findViralRegions(record('OOOVV', L2001)))).toEqual([[1201, 2001, 2, 2, 0, 0]]);
  });

  it('the overlapping short last chunk (501 bp in 500-bp chunks: [1,500], [251,501])', () => {
    const regions = findViralRegions(record('VV', [[1, 500], [251, 501]]));
    expect(brief(regions)).toEqual([[1, 501, 2, 2, 0, 0]]);
    expect(regions[0].fractionOfRecord).toBe(1);
  });

  it('a record cut into one chunk needs one viral chunk', () => {
    expect(brief(findViralRegions(record('V', [[1, 300]])))).toEqual([[1, 300, 1, 1, 0, 0]]);
    expect(brief(findViralRegions(record('V', [[1, 300]]), { minChunks: 5 }))).toEqual([[1, 300, 1, 1, 0, 0]]);
    expect(findViralRegions(record('O', [[1, 300]]))).toEqual([]);
    expect(findViralRegions(record('U', [[1, 300]]))).toEqual([]);
  });

  it('every chunk viral: one region over the whole record; none scored: no region', () => {
    const all = findViralRegions(record('VVVVV', L2001));
    expect(brief(all)).toEqual([[1, 2001, 5, 5, 0, 0]]);
    expect(formatRegionsTsv(all)).toBe('r\t1\t2001\t2001\t5\t5\t0\t0\t0.75\t0.75\t1.0000\n');
    expect(findViralRegions(record('UUUUU', L2001))).toEqual([]);
  });

  it('viralBases counts overlapping regions once', () => {
    const r = (start: number, end: number) => ({ start, end }) as ViralRegion;
    expect(viralBases([r(1, 500), r(401, 900)])).toBe(900);
    expect(viralBases([r(1, 10), r(21, 30)])).toBe(20);
    expect(viralBases([])).toBe(0);
  });

  it('refuses bad options', () => {
    expect(() => findViralRegions(record('V', [[1, 300]]), { gap: -1 })).toThrow(/gap/);
    expect(() => findViralRegions(record('V', [[1, 300]]), { minChunks: 0 })).toThrow(/minChunks/);
    expect(() => findViralRegions(record('V', [[1, 300]]), { maxGapBases: 1.5 })).toThrow(/maxGapBases/);
  });
});

/**
 * The rule restated plainly: list the viral chunks; cut the list wherever two neighbours have more than `gap`
 * scored non-viral chunks, or more than `maxGapBases` bases, between them; keep pieces with enough chunks.
 */
function regionsByRule(calls: Call[], spans: [number, number][], gap: number, maxGap: number, minChunks: number): number[][] {
  const viral = calls.flatMap((c, i) => (c === 'V' ? [i] : []));
  const pieces: number[][] = [];
  viral.forEach((v, n) => {
    const prev = viral[n - 1];
    const between = prev === undefined ? [] : calls.slice(prev + 1, v);
    const bases = prev === undefined ? 0 : Math.max(0, spans[v][0] - spans[prev][1] - 1);
    if (prev === undefined || between.filter((c) => c === 'O').length > gap || bases > maxGap) pieces.push([v]);
    else pieces[pieces.length - 1].push(v);
  });
  const need = calls.length === 1 ? 1 : minChunks;
  return pieces
    .filter((p) => p.length >= need)
    .map((p) => {
      const inside = calls.slice(p[0], p[p.length - 1] + 1);
      const count = (c: Call) => inside.filter((x) => x === c).length;
      return [spans[p[0]][0], spans[p[p.length - 1]][1], inside.length, count('V'), count('O'), count('U')];
    });
}

describe('findViralRegions against the rule restated (random calls)', () => {
  it('agrees on 2,000 random records', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let t = 0; t < 2000; t++) {
      const n = 1 + Math.floor(rand() * 12);
      // spans with random steps: overlaps, touching chunks and gaps (as a caller's own layout could have)
      const spans: [number, number][] = [];
      let start = 1;
      for (let i = 0; i < n; i++) {
        const len = 100 + Math.floor(rand() * 400);
        spans.push([start, start + len - 1]);
        start += Math.max(1, Math.floor(rand() * 900) - 200);
      }
      const calls = Array.from({ length: n }, () => (['V', 'O', 'U'] as const)[Math.floor(rand() * 3)]);
      const gap = Math.floor(rand() * 3);
      const maxGap = Math.floor(rand() * 600);
      const minChunks = 1 + Math.floor(rand() * 3);
      const got = brief(findViralRegions(record(calls.join(''), spans, undefined, Math.max(...spans.map((s) => s[1]))), { gap, maxGapBases: maxGap, minChunks }));
      expect(got, `${calls.join('')} gap ${gap} maxGap ${maxGap} min ${minChunks} ${JSON.stringify(spans)}`).toEqual(regionsByRule(calls, spans, gap, maxGap, minChunks));
    }
  });
});

describe('RecordChunksCollector (streaming: one record held at a time)', () => {
  it('finishes a record when a later record\'s frame arrives, declared records without frames in order, all unscored', () => {
    const c = new RecordChunksCollector();
    c.declare('a', [{ start: 0, end: 500 }, { start: 400, end: 900 }]);
    c.declare('gap', [{ start: 0, end: 300 }]);
    c.declare('b', [{ start: 0, end: 300 }]);
    expect(c.add('a_chunk_2R1', 0.3, 0.7)).toEqual([]);
    expect(c.add('a_chunk_2F3', 0.1, 0.9)).toEqual([]);
    const done = c.add('b_chunk_1F1', 0.8, 0.2);
    expect(done.map((r) => r.id)).toEqual(['a', 'gap']);
    expect(done[0]).toEqual({
      id: 'a', length: 900, chunks: [
        { id: 'a_chunk_1', start: 1, end: 500, frames: 0, bestVirusScore: NaN, bestFrame: '', call: 'unscored' },
        { id: 'a_chunk_2', start: 401, end: 900, frames: 2, bestVirusScore: Math.fround(0.9), bestFrame: 'F3', call: 'virus' },
      ],
    });
    expect(done[1].chunks.map((ch) => ch.call)).toEqual(['unscored']);
    expect(c.finish().map((r) => [r.id, r.chunks[0].call])).toEqual([['b', 'others']]);
  });

  it('passes over frameless records across the queue\'s compaction (thousands of records, every third without frames)', () => {
    // 100,000 frames of reads on the GPU machine failed here ("reading 'calls'" of undefined): the queue is
    // compacted after 1,024 records, in the middle of passing over a frameless record.
    const c = new RecordChunksCollector();
    const ids = Array.from({ length: 5000 }, (_, i) => `r${i}`);
    const finished: string[] = [];
    for (const id of ids) c.declare(id, [{ start: 0, end: 300 }]);
    ids.forEach((id, i) => {
      if (i % 3 !== 1) finished.push(...c.add(`${id}_chunk_1F1`, 0.2, 0.8).map((r) => r.id));
    });
    finished.push(...c.finish().map((r) => r.id));
    expect(finished).toEqual(ids);
  });

  it('refuses frames out of input order or of undeclared records', () => {
    const c = new RecordChunksCollector();
    c.declare('a', [{ start: 0, end: 300 }]);
    c.declare('b', [{ start: 0, end: 300 }]);
    c.add('b_chunk_1F1', 0.5, 0.5);
    expect(() => c.add('a_chunk_1F1', 0.5, 0.5)).toThrow(UndeclaredFrameError);
    expect(() => c.add('zz_chunk_1F1', 0.5, 0.5)).toThrow(/'zz', which was not declared/);
  });

  it('without declarations, groups frames by record (before the last _chunk_), scored chunks only', () => {
    const c = new RecordChunksCollector();
    c.add('x_chunk_3F1', 0.4, 0.6);
    c.add('y_chunk_1F1', 0.9, 0.1);
    c.add('x_chunk_1F2', 0.2, 0.8);
    expect(c.finish().map((r) => [r.id, r.length, r.chunks.map((ch) => `${ch.id}:${ch.call}`)])).toEqual([
      ['x', undefined, ['x_chunk_1:virus', 'x_chunk_3:virus']],
      ['y', undefined, ['y_chunk_1:others']],
    ]);
  });
});
