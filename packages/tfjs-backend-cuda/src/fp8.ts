// FP8 E4M3 ("fn": no infinities, one NaN code per sign, largest finite 448) as the backend's fp8 kernels compute it,
// in plain TypeScript: the reference the GPU test suite checks the CUDA kernels against, tested on the CPU in CI.
// A row (or a weight's output channel) is stored as q = e4m3(v / scale) with scale = amax / 448 (1 for an all-zero
// row), and read as q · scale: the largest |v| maps to ±448, and E4M3's 3 mantissa bits give a relative error of
// at most 2⁻⁴ above 2⁻⁶ · scale (subnormals below).

/** Largest finite E4M3 value. */
export const e4m3Max = 448;

/** The value of an E4M3 byte (NaN for 0x7f and 0xff). */
export function e4m3ToNumber(bits: number): number {
  const sign = bits & 0x80 ? -1 : 1;
  const exponent = (bits >> 3) & 0xf;
  const mantissa = bits & 7;
  if (exponent === 15 && mantissa === 7) return NaN;
  return sign * (exponent === 0 ? mantissa * 2 ** -9 : (1 + mantissa / 8) * 2 ** (exponent - 7));
}

/** Round half to even. */
function roundHalfEven(t: number): number {
  const floor = Math.floor(t);
  const rest = t - floor;
  return rest > 0.5 ? floor + 1 : rest < 0.5 ? floor : floor + (floor % 2);
}

/**
 * The E4M3 byte nearest to `v` (ties to the even code), saturating to ±448 beyond the range (also ±∞), NaN to
 * 0x7f: CUDA's __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3) for an fp32 `v`.
 */
export function numberToE4M3(v: number): number {
  if (Number.isNaN(v)) return 0x7f;
  const sign = v < 0 || Object.is(v, -0) ? 0x80 : 0;
  const a = Math.abs(v);
  if (a >= e4m3Max) return sign | 0x7e;
  if (a < 2 ** -6) return sign | roundHalfEven(a * 2 ** 9); // subnormal: multiples of 2⁻⁹ (8 → the smallest normal, 0x08)
  let exponent = Math.floor(Math.log2(a));
  if (2 ** exponent > a) exponent--;
  if (2 ** (exponent + 1) <= a) exponent++;
  const mantissa = roundHalfEven((a / 2 ** exponent - 1) * 8); // 0..8; 8 carries into the exponent
  const bits = ((exponent + 7) << 3) + mantissa;
  return sign | Math.min(bits, 0x7e);
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
