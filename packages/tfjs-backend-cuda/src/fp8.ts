// FP8 E4M3 ("fn": no infinities, one NaN code per sign, largest finite 448) as the backend's fp8 kernels compute it,
// in plain TypeScript: the reference the GPU test suite checks the CUDA kernels against, tested on the CPU in CI.
// A row (or a weight's output channel) is stored as q = e4m3(v / scale) with scale = amax / 448 (1 for an all-zero
// row), and read as q · scale: the largest |v| maps to ±448, and E4M3's 3 mantissa bits give a relative error of
// at most 2⁻⁴ above 2⁻⁶ · scale (subnormals below).

/** Largest finite E4M3 value. */
export const e4m3Max = 448;

/** An E4M3 byte's value from its bit fields (NaN for 0x7f and 0xff). */
function decodeE4M3(bits: number): number {
  const sign = bits & 0x80 ? -1 : 1;
  const exponent = (bits >> 3) & 0xf;
  const mantissa = bits & 7;
  if (exponent === 15 && mantissa === 7) return NaN;
  return sign * (exponent === 0 ? mantissa * 2 ** -9 : (1 + mantissa / 8) * 2 ** (exponent - 7));
}

// Tables, so that rounding a value is a binary search and reading one a lookup: the GPU suite rounds whole weights
// (26M values for ESM-2 3B's fc1) on the cpu, which took the bit-field arithmetic ~15 s.
const DECODED = Float64Array.from({ length: 256 }, (_, bits) => decodeE4M3(bits));
/** Halfway between the non-negative codes c and c + 1 (0 ≤ c < 0x7e): exact in float64 (the values are dyadic). */
const MIDPOINTS = Float64Array.from({ length: 0x7e }, (_, code) => (DECODED[code] + DECODED[code + 1]) / 2);

/** The value of an E4M3 byte (NaN for 0x7f and 0xff). */
export function e4m3ToNumber(bits: number): number {
  return DECODED[bits & 0xff];
}

/**
 * The E4M3 byte nearest to `v` (ties to the even code), saturating to ±448 beyond the range (also ±∞), NaN to
 * 0x7f: CUDA's __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3) for an fp32 `v`. The non-negative codes ascend
 * with their values, so the code of |v| is the number of midpoints below it; on a midpoint, the even one of the two.
 */
export function numberToE4M3(v: number): number {
  if (Number.isNaN(v)) return 0x7f;
  const sign = v < 0 || Object.is(v, -0) ? 0x80 : 0;
  const a = Math.abs(v);
  if (a >= e4m3Max) return sign | 0x7e;
  let lo = 0;
  let hi = MIDPOINTS.length; // the first midpoint ≥ a is in [lo, hi]; hi = none
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (MIDPOINTS[mid] < a) lo = mid + 1;
    else hi = mid;
  }
  const code = lo < MIDPOINTS.length && MIDPOINTS[lo] === a && lo % 2 === 1 ? lo + 1 : lo;
  return sign | code;
}

/** The dequantisation scale of a row whose largest |value| is `amax` (fp32, as the kernels compute it). */
export function e4m3Scale(amax: number): number {
  return amax > 0 ? Math.fround(amax / e4m3Max) : 1;
}

/** Quantises `values` (fp32) with one scale: the bytes and the scale, as the kernels do per row or per channel. */
export function quantizeE4M3(values: ArrayLike<number>): { bits: Uint8Array; scale: number } {
  let amax = 0;
  for (let i = 0; i < values.length; i++) amax = Math.max(amax, Math.abs(values[i]) || 0);
  const scale = e4m3Scale(Math.fround(amax));
  const bits = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) bits[i] = numberToE4M3(Math.fround(values[i] / scale));
  return { bits, scale };
}
