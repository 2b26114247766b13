import { describe, expect, it } from 'vitest';
import { alibiSlopes } from '../src/index.js';

// Expected slopes derived by hand from MosaicBERT `_get_alibi_head_slopes` (bert_layers.py), and for
// 12 heads the values listed in models-reference.md B.3 (computed there with the Python code).
describe('alibiSlopes', () => {
  it('12 heads (DNABERT-S): not a power of two', () => {
    const expected = [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.70710678, 0.3535533906, 0.1767766953, 0.08838834765];
    const got = alibiSlopes(12);
    expected.forEach((v, i) => expect(got[i]).toBeCloseTo(v, 7));
  });

  it('power-of-two head counts: start^(k+1) with start = 2^(-8/n)', () => {
    for (const n of [1, 2, 4, 8, 16, 32]) {
      const got = alibiSlopes(n);
      expect(got.length).toBe(n);
      got.forEach((v, k) => expect(v).toBe(Math.fround(2 ** ((-8 / n) * (k + 1)))));
    }
  });

  it('6 heads: slopes(4) then slopes(8)[0::2][:2]', () => {
    expect([...alibiSlopes(6)]).toEqual([0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125]);
  });

  it('24 heads: slopes(16) then slopes(32)[0::2][:8]', () => {
    const got = alibiSlopes(24);
    const expected = [
      ...Array.from({ length: 16 }, (_, k) => 2 ** (-0.5 * (k + 1))),
      ...Array.from({ length: 8 }, (_, j) => 2 ** (-0.25 * (2 * j + 1))),
    ];
    expected.forEach((v, i) => expect(got[i]).toBe(Math.fround(v)));
  });

  it('rejects a non-positive head count', () => {
    expect(() => alibiSlopes(0)).toThrow(/positive integer/);
  });
});
