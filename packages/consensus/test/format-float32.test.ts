import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatFloat32 } from '../src/format-float32.js';
import { float32FromBits } from '../src/float32-bits.js';
import { shortestDigits } from '../src/shortest-digits.js';
import { shortestDigitsExact } from '../src/shortest-digits-exact.js';

const testData = new URL('../../../test-data/consensus/', import.meta.url);

// Rows: bits, numpy's str (max_positional 1e6), numpy legacy='2.2' str (1e16) — written by numpy itself.
const numpyRows = readFileSync(new URL('numpy-float32-strings.tsv', testData), 'utf8')
  .split('\n')
  .filter((l) => l && !l.startsWith('#'))
  .map((l) => l.split('\t'));

describe('formatFloat32 = str(np.float32)', () => {
  it(`matches numpy on ${numpyRows.length} values (random bits, probabilities, powers of 10 and 2 ± ulps, subnormals, specials)`, () => {
    const wrong: string[] = [];
    for (const [hex, current, legacy] of numpyRows) {
      const x = float32FromBits(parseInt(hex, 16));
      const got = formatFloat32(x);
      const gotLegacy = formatFloat32(x, { maxPositional: 1e16 });
      if (got !== current) wrong.push(`${hex}: ${got} != ${current}`);
      if (gotLegacy !== legacy) wrong.push(`${hex} (legacy): ${gotLegacy} != ${legacy}`);
    }
    expect(wrong.slice(0, 20)).toEqual([]);
  });

  it('switches notation exactly where numpy does', () => {
    expect(formatFloat32(1e-4)).toBe('1e-04'); // float32(1e-4) is just below 1e-4
    expect(formatFloat32(1.0001e-4)).toBe('0.00010001');
    expect(formatFloat32(999999.94)).toBe('999999.94');
    expect(formatFloat32(1e6)).toBe('1e+06');
    expect(formatFloat32(1e6, { maxPositional: 1e16 })).toBe('1000000.0');
    expect(formatFloat32(1.2345e-5)).toBe('1.2345e-05');
    expect(formatFloat32(0.0011595711)).toBe('0.0011595711');
    expect(formatFloat32(-0)).toBe('-0.0');
    expect(formatFloat32(NaN)).toBe('nan');
    expect(formatFloat32(-Infinity)).toBe('-inf');
  });

  it('fast digits agree with the exact BigInt digits on a sweep of bit patterns', () => {
    // Every 29989th positive finite float32 (≈ 71k values across all exponents) plus dense runs near 1.
    const mismatches: string[] = [];
    const check = (bits: number) => {
      const a = float32FromBits(bits);
      const fast = shortestDigits(a);
      const exact = shortestDigitsExact(a);
      if (fast.digits !== exact.digits || fast.exponent !== exact.exponent) {
        mismatches.push(`${bits.toString(16)}: ${JSON.stringify(fast)} vs ${JSON.stringify(exact)}`);
      }
    };
    for (let bits = 1; bits < 0x7f800000; bits += 29989) check(bits);
    for (let bits = 0x3f7f0000; bits < 0x3f800100; bits += 7) check(bits);
    expect(mismatches.slice(0, 10)).toEqual([]);
  });
});
