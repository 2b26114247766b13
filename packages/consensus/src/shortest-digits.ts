// Fast shortest round-trip digits of a float32 (numpy Dragon4 "unique" semantics, see
// shortest-digits-exact.ts). It walks the digit positions like Dragon4 but with plain doubles: a float32,
// the ends of its rounding interval and every candidate n·10^j (n < 2^53, |j| ≤ 22) are either exact
// doubles or one correctly rounded operation away, and rounding is monotonic, so a STRICT comparison
// between such doubles is also true of the exact values. Whenever a comparison comes out equal (the
// double cannot tell) it hands the value to the exact BigInt version. Cost: a handful of float ops per
// digit instead of BigInt arithmetic.

import { float32Parts } from './float32-bits.js';
import { type DecimalDigits, normalise, shortestDigitsExact } from './shortest-digits-exact.js';

const EXACT_POW10: number[] = [];
for (let k = 0; k <= 22; k++) EXACT_POW10.push(Number(`1e${k}`));

/** n·10^j rounded once to a double (n a non-negative integer < 2^53). */
function scaled(n: number, j: number): number {
  if (j >= 0 && j <= 22) return n * EXACT_POW10[j];
  if (j < 0 && j >= -22) return n / EXACT_POW10[-j];
  return Number(`${n}e${j}`);
}

// MIN_F32_AT_LEAST[E + 45] = the smallest float32 ≥ 10^E (E in -45..38), so for a float32 a:
// a ≥ 10^E  ⇔  a ≥ MIN_F32_AT_LEAST[E + 45]. Built once, exactly, from the decimal strings.
const MIN_E = -45;
const MAX_E = 38;
let MIN_F32_AT_LEAST: number[] = [];

function buildPow10Table(): number[] {
  const table: number[] = [];
  for (let e = MIN_E; e <= MAX_E; e++) {
    // Math.fround(Number(s)) can double-round; step to the neighbouring float32 until it is the first ≥ 10^e.
    table.push(firstFloat32AtLeastPow10(Math.fround(Number(`1e${e}`)), e));
  }
  return table;
}

function firstFloat32AtLeastPow10(guess: number, e: number): number {
  const ge = (x: number) => compareWithPow10(x, e) >= 0;
  let x = guess;
  while (!ge(x)) x = nextUp(x);
  for (let prev = nextDown(x); prev > 0 && ge(prev); prev = nextDown(x)) x = prev;
  return x;
}

/** Sign of (x − 10^e), exactly, for a positive float32 x. */
function compareWithPow10(x: number, e: number): number {
  const { mantissa, exponent } = float32Parts(x);
  let left = BigInt(mantissa);
  let right = 1n;
  if (exponent >= 0) left <<= BigInt(exponent);
  else right <<= BigInt(-exponent);
  // x = left / right; compare left with 10^e · right
  if (e >= 0) right *= 10n ** BigInt(e);
  else left *= 10n ** BigInt(-e);
  return left === right ? 0 : left > right ? 1 : -1;
}

const step32 = new Float32Array(1);
const stepBits = new Uint32Array(step32.buffer);
function nextUp(x: number): number {
  step32[0] = x;
  stepBits[0] += 1;
  return step32[0];
}
function nextDown(x: number): number {
  step32[0] = x;
  stepBits[0] -= 1;
  return step32[0];
}

/** floor(log10(a)) for a positive finite float32, exactly. */
export function decimalExponent(a: number): number {
  if (MIN_F32_AT_LEAST.length === 0) MIN_F32_AT_LEAST = buildPow10Table();
  let e = Math.floor(Math.log10(a));
  if (e < MIN_E) e = MIN_E;
  if (e > MAX_E) e = MAX_E;
  while (e > MIN_E && a < MIN_F32_AT_LEAST[e - MIN_E]) e--;
  while (e < MAX_E && a >= MIN_F32_AT_LEAST[e + 1 - MIN_E]) e++;
  return e;
}

/** Shortest digits of a positive finite non-zero float32 `a` (a must already be float32-exact). */
export function shortestDigits(a: number): DecimalDigits {
  const { exponent, unequalMargins } = float32Parts(a);
  const halfGap = 2 ** (exponent - 1);
  const lo = a - (unequalMargins ? halfGap / 2 : halfGap); // exact doubles
  const hi = a + halfGap;
  const E = decimalExponent(a);

  for (let p = 1; p <= 9; p++) {
    const j = E - p + 1;
    let n = Math.floor(j >= 0 ? a / scaled(1, j) : a * scaled(1, -j));
    let below = scaled(n, j);
    let above = scaled(n + 1, j);
    // The estimate can be one off: fix it with strict (hence exact) comparisons.
    for (let tries = 0; tries < 3 && (below > a || above < a); tries++) {
      n += below > a ? -1 : 1;
      below = scaled(n, j);
      above = scaled(n + 1, j);
    }
    if (below > a || above < a) return shortestDigitsExact(a);
    // A candidate within half a double-ulp of a is the closest and surely inside the interval.
    if (below === a) return normalise(n, j);
    if (above === a) return normalise(n + 1, j);

    let lowIn: boolean;
    if (below > lo) lowIn = true;
    else if (below < lo) lowIn = false;
    else return shortestDigitsExact(a); // the double cannot tell; ends count only for even significands
    let highIn: boolean;
    if (above < hi) highIn = true;
    else if (above > hi) highIn = false;
    else return shortestDigitsExact(a);

    if (!lowIn && !highIn) continue;
    if (lowIn && highIn) {
      const mid = scaled(n * 10 + 5, j - 1);
      if (mid === a) return shortestDigitsExact(a);
      return normalise(mid < a ? n + 1 : n, j);
    }
    return normalise(lowIn ? n : n + 1, j);
  }
  return shortestDigitsExact(a);
}
