// str(numpy.float32(x)) — how the original VirNucPro prints its scores. numpy (≥ 1.14, non-legacy) prints
// the shortest digits that read back as the same float32 (Dragon4 "unique" mode), positional when
// 1e-4 ≤ |x| < 1e6 (or x is 0/nan), scientific otherwise (numpy/_core/src/multiarray/scalartypes.c.src,
// `floattype_str_either`: max_positional = 1e6 for float32 since numpy 2.3; numpy ≤ 2.2, or
// `legacy='2.2'`, used 1e16). Positional keeps one zero after the point ("1.0"); scientific drops a bare
// point and pads the exponent to two digits ("1e-05", "1.2345e-05", "3.4e+38").

import { shortestDigits } from './shortest-digits.js';

export interface FormatFloat32Options {
  /** Upper limit of positional notation: 1e6 (numpy ≥ 2.3, default) or 1e16 (numpy ≤ 2.2). */
  maxPositional?: number;
}

export function formatFloat32(x: number, options: FormatFloat32Options = {}): string {
  const v = Math.fround(x);
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const sign = v < 0 ? '-' : '';
  const a = v < 0 ? -v : v;
  const { digits, exponent } = shortestDigits(a);
  const maxPositional = options.maxPositional ?? 1e6;
  if (a >= 1e-4 && a < maxPositional) return sign + positional(digits, exponent);
  return sign + scientific(digits, exponent);
}

function positional(digits: string, exponent: number): string {
  if (exponent < 0) return `0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = exponent + 1;
  if (digits.length <= whole) return `${digits}${'0'.repeat(whole - digits.length)}.0`;
  return `${digits.slice(0, whole)}.${digits.slice(whole)}`;
}

function scientific(digits: string, exponent: number): string {
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const abs = Math.abs(exponent);
  return `${mantissa}e${exponent < 0 ? '-' : '+'}${abs < 10 ? '0' : ''}${abs}`;
}
