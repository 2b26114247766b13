import { float32ToFloat16Bits, halfBitsToNumber } from '@virnucpro/weights';

/**
 * Rotary inverse frequencies 1/10000^(2i/h), rounded to fp16 as stored in the released ESM-2
 * checkpoints (models-reference A.6, D.3). Used only when a checkpoint lacks inv_freq.
 */
export function esmInvFreq(headDim: number): Float32Array {
  const exact = new Float32Array(headDim / 2);
  for (let i = 0; i < exact.length; i++) exact[i] = 1 / 10000 ** ((2 * i) / headDim);
  return Float32Array.from(float32ToFloat16Bits(exact), halfBitsToNumber);
}

/**
 * cos/sin tables [positions, headDim] for the half-split ("rotate_half") convention:
 * angle[t, i] = angle[t, i + h/2] = fp32(t · inv_freq[i]), each value rounded to fp32 as torch does.
 */
export function rotaryTables(invFreq: Float32Array, positions: number): { cos: Float32Array; sin: Float32Array } {
  const half = invFreq.length;
  const h = 2 * half;
  const cos = new Float32Array(positions * h);
  const sin = new Float32Array(positions * h);
  for (let t = 0; t < positions; t++) {
    for (let i = 0; i < half; i++) {
      const angle = Math.fround(t * invFreq[i]);
      const c = Math.fround(Math.cos(angle));
      const s = Math.fround(Math.sin(angle));
      cos[t * h + i] = cos[t * h + i + half] = c;
      sin[t * h + i] = sin[t * h + i + half] = s;
    }
  }
  return { cos, sin };
}
