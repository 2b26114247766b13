import { describe, expect, it } from 'vitest';
import { chunkLayout, chunkRecord } from '../src/index.js';

/** [start, end) pairs from the worked examples of the reference (virnucpro-reference.md §1.1). */
const spans = (...pairs: [number, number][]) => pairs.map(([start, end]) => ({ start, end }));

describe('chunkLayout: worked examples of the reference', () => {
  it.each([
    [500, 500, spans([0, 500])],
    [501, 500, spans([0, 500], [250, 501])],
    [900, 500, spans([0, 500], [449, 900])],
    [999, 500, spans([0, 500], [499, 999])],
    [1000, 500, spans([0, 500], [500, 1000])],
    [1234, 500, spans([0, 500], [411, 911], [822, 1234])],
    [650, 300, spans([0, 300], [216, 516], [432, 650])],
    [174, 500, spans([0, 174])],
  ])('L=%i C=%i', (length, chunkSize, expected) => {
    expect(chunkLayout(length, chunkSize)).toEqual(expected);
  });

  it('L=2001 C=500 starts at 0,400,800,1200,1600 and the last chunk has 401 bases', () => {
    const got = chunkLayout(2001, 500);
    expect(got.map((s) => s.start)).toEqual([0, 400, 800, 1200, 1600]);
    expect(got[4].end - got[4].start).toBe(401);
  });

  it('L=10007 C=500: 21 chunks starting at 476·k, the last 487 bases long', () => {
    const got = chunkLayout(10007, 500);
    expect(got).toHaveLength(21);
    got.forEach((s, k) => expect(s.start).toBe(476 * k));
    expect(got[20].end - got[20].start).toBe(487);
  });

  it('L=1000 C=300 starts at 0,249,498,747 and the last chunk has 253 bases', () => {
    const got = chunkLayout(1000, 300);
    expect(got.map((s) => s.start)).toEqual([0, 249, 498, 747]);
    expect(got[3].end - got[3].start).toBe(253);
  });

  it('L=14972 C=500: 28 overlaps of 1 base, then one of 0 (mixed q/q+1 case)', () => {
    const got = chunkLayout(14972, 500);
    const overlaps = got.slice(1).map((s, k) => got[k].end - s.start);
    expect(overlaps).toEqual([...Array(28).fill(1), 0]);
    expect(got[29]).toEqual({ start: 14472, end: 14972 });
  });

  it('rejects a zero-length sequence, as the original divides by zero', () => {
    expect(() => chunkLayout(0, 500)).toThrow(RangeError);
  });
});

/**
 * The original Python, transliterated line by line (lists, zip, Python slice clipping) — an oracle that is
 * independent of the closed-form loop in chunkLayout.
 */
function pythonSplitFastaChunk(length: number, chunkSize: number): { start: number; end: number }[] {
  const numChunks = -Math.floor(-length / chunkSize);
  const totalChunkLength = numChunks * chunkSize;
  const repeatLength = totalChunkLength - length;
  const lowerInt = Math.trunc(repeatLength / numChunks);
  const upperInt = lowerInt + 1;
  const lowUpNumbers: number[] = Array(Math.max(0, numChunks - 1)).fill(lowerInt);
  const need = repeatLength - lowUpNumbers.reduce((a, b) => a + b, 0);
  const finalNumbers = [
    ...Array(Math.max(0, need)).fill(upperInt),
    ...Array(Math.max(0, numChunks - 1 - need)).fill(lowerInt),
    0,
  ];
  const starts: number[] = [];
  for (let a = 0; a < length; a += chunkSize) starts.push(a);
  const out: { start: number; end: number }[] = [];
  let moveStep = 0;
  for (let i = 0; i < Math.min(starts.length, finalNumbers.length); i++) {
    const a = starts[i];
    const from = a > 1 ? a - moveStep : a;
    out.push({ start: from, end: Math.min(from + chunkSize, length) });
    moveStep += finalNumbers[i];
  }
  return out;
}

describe('chunkLayout agrees with a line-by-line transliteration of the original', () => {
  it('for every L up to 3000 at C = 300 and 500, and random L up to 2e5, C 50..999', () => {
    const cases: [number, number][] = [];
    for (const c of [300, 500]) for (let l = 1; l <= 3000; l++) cases.push([l, c]);
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 200; i++) cases.push([1 + (next() % 200_000), 50 + (next() % 950)]);
    const differing = cases.filter(([l, c]) => JSON.stringify(chunkLayout(l, c)) !== JSON.stringify(pythonSplitFastaChunk(l, c)));
    expect(differing).toEqual([]);
  });
});

describe('chunkRecord', () => {
  it('names chunks {id}_chunk_{k} (1-based), keeps case and drops nothing else', () => {
    const sequence = 'acgT'.repeat(300); // 1200 bases → 3 chunks at C = 500
    const got = chunkRecord({ id: 'read/1', sequence }, 500);
    expect(got.map((c) => c.id)).toEqual(['read/1_chunk_1', 'read/1_chunk_2', 'read/1_chunk_3']);
    // n=3, R=300, q=100, u=100 ≥ n−1 → both gaps overlap by q+1 = 101: starts 0, 399, 798
    expect(got[1].sequence).toBe(sequence.slice(399, 899));
    expect(got[2].sequence).toBe(sequence.slice(798));
  });

  it('a record no longer than C is one chunk with suffix _chunk_1', () => {
    expect(chunkRecord({ id: 's', sequence: 'ACGTN' }, 500)).toEqual([{ id: 's_chunk_1', sequence: 'ACGTN' }]);
  });
});
