// Exact (BigInt) shortest round-trip digits of a float32, with the same choices numpy's Dragon4 makes in
// "unique" mode (numpy/_core/src/multiarray/dragon4.c): stop at the first digit position where rounding the
// value down or up lands inside the rounding interval (interval ends included when the significand is even,
// IEEE round-half-even); if both do, take the closer one; an exact tie goes to the even last digit.
// Slow (a few microseconds) but obviously right; the fast path in shortest-digits.ts defers to it whenever
// double arithmetic cannot decide.

import { float32Parts } from './float32-bits.js';

export interface DecimalDigits {
  /** Significant digits, no leading or trailing zeros ("0" only for zero). */
  digits: string;
  /** Decimal exponent of the first digit: value = 0.d1d2… × 10^(exponent+1). */
  exponent: number;
}

const TEN = 10n;

function pow10(n: number): bigint {
  return TEN ** BigInt(n);
}

/** Shortest digits of a positive finite non-zero float32 `a`. */
export function shortestDigitsExact(a: number): DecimalDigits {
  const { mantissa, exponent, unequalMargins } = float32Parts(a);
  // Work in units of 2^(exponent-2): value = 4m, half-gap above = 2, half-gap below = 1 or 2.
  const shift = exponent - 2;
  let num = 4n * BigInt(mantissa);
  let marginLow = unequalMargins ? 1n : 2n;
  let marginHigh = 2n;
  let den = 1n;
  if (shift >= 0) {
    const s = 1n << BigInt(shift);
    num *= s;
    marginLow *= s;
    marginHigh *= s;
  } else {
    den = 1n << BigInt(-shift);
  }
  const isEven = (mantissa & 1) === 0;

  // E = floor(log10(a)), estimated in floating point and corrected exactly.
  let E = Math.floor(Math.log10(a));
  const atLeast = (e: number) => (e >= 0 ? num >= pow10(e) * den : num * pow10(-e) >= den);
  while (!atLeast(E)) E--;
  while (atLeast(E + 1)) E++;

  for (let p = 1; p <= 17; p++) {
    const j = E - p + 1; // exponent of the last digit position
    let n = num;
    let lo = marginLow;
    let hi = marginHigh;
    let unit = den;
    if (j >= 0) unit = den * pow10(j);
    else {
      const k = pow10(-j);
      n *= k;
      lo *= k;
      hi *= k;
    }
    const floorN = n / unit;
    const rem = n - floorN * unit;
    const low = isEven ? rem <= lo : rem < lo;
    const high = isEven ? unit - rem <= hi : unit - rem < hi;
    if (!low && !high) continue;
    let roundDown = low;
    if (low === high) {
      const twice = 2n * rem;
      roundDown = twice < unit || (twice === unit && floorN % 2n === 0n);
    }
    return normalise(roundDown ? floorN : floorN + 1n, j);
  }
  throw new Error(`shortestDigitsExact: no representation found for ${a}`);
}

/** Turns integer n × 10^j into digits + exponent of the first digit, dropping trailing zeros. */
export function normalise(n: bigint | number, j: number): DecimalDigits {
  let s = String(n);
  let end = s.length;
  while (end > 1 && s.charCodeAt(end - 1) === 48) end--;
  const exponent = j + s.length - 1;
  s = s.slice(0, end);
  return { digits: s, exponent };
}
