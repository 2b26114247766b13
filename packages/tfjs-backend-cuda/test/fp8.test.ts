import { describe, expect, it } from 'vitest';
import { e4m3Max, e4m3Scale, e4m3ToNumber, numberToE4M3, quantizeE4M3 } from '../src/fp8.js';

// The plain reference: every finite non-negative E4M3 code decoded from its bit fields, and rounding by looking
// for the nearest one (ties to the even code), saturating at the largest.
const codes = Array.from({ length: 0x7f }, (_, bits) => ({ bits, value: (bits >> 3) === 0 ? (bits & 7) / 512 : (8 + (bits & 7)) * 2 ** ((bits >> 3) - 10) }));
function nearestCode(v: number): number {
  if (Number.isNaN(v)) return 0x7f;
  const sign = v < 0 || Object.is(v, -0) ? 0x80 : 0;
  const a = Math.abs(v);
  let best = codes[0];
  for (const c of codes) {
    const d = Math.abs(c.value - a);
    const bestD = Math.abs(best.value - a);
    if (d < bestD || (d === bestD && c.bits % 2 === 0 && best.bits % 2 === 1)) best = c;
  }
  return sign | best.bits;
}

let seed = 99;
function random(): number {
  seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0;
  return seed / 2 ** 32;
}

describe('E4M3 arithmetic', () => {
  it('decodes every code as its bit fields say, 448 the largest, 0x7f NaN', () => {
    for (const { bits, value } of codes) {
      expect(e4m3ToNumber(bits)).toBe(value);
      expect(e4m3ToNumber(bits | 0x80)).toBe(-value);
    }
    expect(e4m3ToNumber(0x7e)).toBe(e4m3Max);
    expect(e4m3ToNumber(0x7f)).toBeNaN();
    expect(e4m3ToNumber(0xff)).toBeNaN();
  });

  it('encodes every code back to itself', () => {
    for (let bits = 0; bits < 256; bits++) {
      if ((bits & 0x7f) === 0x7f) continue;
      expect(numberToE4M3(e4m3ToNumber(bits))).toBe(bits === 0x80 ? 0x80 : bits);
    }
  });

  it('rounds to the nearest code, ties to even, as the brute-force reference', () => {
    const values: number[] = [];
    for (let i = 0; i < 20000; i++) values.push(Math.fround((random() < 0.5 ? -1 : 1) * 2 ** (-14 + 24 * random())));
    // Midpoints between neighbouring codes (ties) and points just beside them.
    for (let i = 0; i + 1 < codes.length; i++) {
      const mid = (codes[i].value + codes[i + 1].value) / 2;
      values.push(mid, -mid, Math.fround(mid * (1 + 2 ** -20)), Math.fround(mid * (1 - 2 ** -20)));
    }
    values.push(0, -0, 2 ** -10, 2 ** -9, 1.5 * 2 ** -10, 447, 448, 449, 463.9, 464, 465, 1e6, -1e6);
    for (const v of values) expect(numberToE4M3(v), `v = ${v}`).toBe(nearestCode(v));
  });

  it('saturates beyond ±448 and infinities to ±448, NaN stays NaN', () => {
    expect(e4m3ToNumber(numberToE4M3(1e30))).toBe(448);
    expect(e4m3ToNumber(numberToE4M3(-Infinity))).toBe(-448);
    expect(e4m3ToNumber(numberToE4M3(Infinity))).toBe(448);
    expect(e4m3ToNumber(numberToE4M3(NaN))).toBeNaN();
  });

  it('scales a row so that its largest |value| becomes 448, within 2^-4 relative above the subnormals', () => {
    const row = Array.from({ length: 1000 }, () => (random() - 0.5) * 37);
    const { bits, scale } = quantizeE4M3(row);
    const amax = Math.max(...row.map(Math.abs));
    expect(scale).toBe(Math.fround(Math.fround(amax) / 448));
    expect(Math.max(...Array.from(bits, (b) => Math.abs(e4m3ToNumber(b))))).toBe(448);
    row.forEach((v, i) => {
      const back = e4m3ToNumber(bits[i]) * scale;
      expect(Math.abs(back - v)).toBeLessThanOrEqual(Math.max(Math.abs(v) * 2 ** -4, 2 ** -10 * scale) * 1.0001);
    });
    expect(e4m3Scale(0)).toBe(1);
    expect(quantizeE4M3([0, 0, -0]).scale).toBe(1);
  });
});
