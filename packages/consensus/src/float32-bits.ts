// Decomposes a float32 into the integers Dragon4-style printers work with: value = mantissa · 2^exponent,
// plus the half-gaps to its neighbours (the rounding interval a decimal must fall in to read back as it).

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export interface Float32Parts {
  /** Integer significand (implicit bit included for normal numbers). */
  mantissa: number;
  /** Power of two the significand is scaled by. */
  exponent: number;
  /** True at an exact power of two (not the smallest normal): the gap below is half the gap above. */
  unequalMargins: boolean;
}

/** Parts of a positive, finite, non-zero float32 value `a` (already float32-exact). */
export function float32Parts(a: number): Float32Parts {
  f32[0] = a;
  const bits = u32[0];
  const biased = (bits >>> 23) & 0xff;
  const fraction = bits & 0x7fffff;
  if (biased === 0) return { mantissa: fraction, exponent: -149, unequalMargins: false };
  return { mantissa: fraction | 0x800000, exponent: biased - 150, unequalMargins: fraction === 0 && biased > 1 };
}

/** The float32 with the given raw IEEE-754 bits (for tests and sweeps). */
export function float32FromBits(bits: number): number {
  u32[0] = bits >>> 0;
  return f32[0];
}

/** The raw IEEE-754 bits of a number rounded to float32. */
export function float32Bits(x: number): number {
  f32[0] = x;
  return u32[0];
}
