// makeMlpForward's kernel (WebAssembly SIMD) sums blocks of rows and hidden units together for speed; each sum must
// still be the plain one (double precision, over the inputs in order), so its bytes never depend on the blocking,
// the lanes or on how rows are split.
import { describe, expect, it } from 'vitest';
import { makeMlpForward, type MlpParts } from '../src/mlp-forward.js';
import { mlpHiddenWasm } from '../src/wasm/mlp-hidden-bytes.js';

function pseudoRandom(length: number, seed: number): Float32Array {
  const out = new Float32Array(length);
  let s = seed;
  for (let i = 0; i < length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = ((s >>> 0) / 2 ** 32 - 0.5) * 2;
  }
  return out;
}

function parts(inputDim: number, hiddenDim: number): MlpParts {
  return {
    inputDim,
    hiddenDim,
    w1: pseudoRandom(hiddenDim * inputDim, 1),
    scale: Float64Array.from(pseudoRandom(hiddenDim, 2), (v) => 1 + v),
    shift: Float64Array.from(pseudoRandom(hiddenDim, 3)),
    w2: pseudoRandom(2 * hiddenDim, 4),
    b2: pseudoRandom(2, 5),
  };
}

/** One row, one hidden unit at a time: the definition the blocked loop must reproduce bit for bit. */
function plainForward(p: MlpParts, x: Float32Array, rows: number): Float32Array {
  const out = new Float32Array(rows * 2);
  const hidden = new Float64Array(p.hiddenDim);
  for (let r = 0; r < rows; r++) {
    for (let h = 0; h < p.hiddenDim; h++) {
      let a = 0;
      for (let k = 0; k < p.inputDim; k++) a += x[r * p.inputDim + k] * p.w1[h * p.inputDim + k];
      const v = a * p.scale[h] + p.shift[h];
      hidden[h] = v > 0 ? v : 0;
    }
    let z0 = p.b2[0];
    let z1 = p.b2[1];
    for (let h = 0; h < p.hiddenDim; h++) {
      z0 += hidden[h] * p.w2[h];
      z1 += hidden[h] * p.w2[p.hiddenDim + h];
    }
    const m = z0 > z1 ? z0 : z1;
    const e0 = Math.exp(z0 - m);
    const e1 = Math.exp(z1 - m);
    out[2 * r] = e0 / (e0 + e1);
    out[2 * r + 1] = e1 / (e0 + e1);
  }
  return out;
}

describe('makeMlpForward', () => {
  for (const [inputDim, hiddenDim] of [[37, 8], [37, 7], [64, 1], [3328, 512]]) {
    it(`${inputDim} → ${hiddenDim} → 2: the same bytes as the plain sums for 1 to 9 rows (and 300: more than one kernel call)`, () => {
      const p = parts(inputDim, hiddenDim);
      const forward = makeMlpForward(p, mlpHiddenWasm());
      for (const rows of hiddenDim === 512 ? [1, 5, 9] : [1, 2, 3, 4, 5, 6, 7, 8, 9, 300]) {
        const x = pseudoRandom(rows * inputDim, 100 + rows);
        const got = forward(x, rows);
        const expected = plainForward(p, x, rows);
        expect(Buffer.from(got.buffer).equals(Buffer.from(expected.buffer)), `${rows} rows`).toBe(true);
      }
    });
  }
});
