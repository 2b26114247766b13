// The MLP's arithmetic as ONE self-contained function, so the same code runs on the calling thread
// (MlpClassifier.predict) and in worker threads (ThreadedMlp), which receive it as source text: no
// worker file to locate next to sources, builds or bundles. It must therefore reference nothing outside
// its own body (no imports, no module constants).

/** The folded weights: hidden = relu((x·w1ᵀ)·scale + shift); logits = hidden·w2ᵀ + b2. */
export interface MlpParts {
  inputDim: number;
  hiddenDim: number;
  w1: Float32Array; // [H, in]
  scale: Float64Array; // BatchNorm folded: (x·w1 + b1 − mean)·γ/√(var+eps) + β = x·w1·scale + shift
  shift: Float64Array;
  w2: Float32Array; // [2, H]
  b2: Float32Array;
}

/**
 * Class probabilities [rows, 2] (others, virus) of `rows` feature rows stored row-major in `features`.
 * Sums in double precision, four rows and two hidden units per pass (register reuse); each row's result
 * depends on that row only, so any split of the rows gives the same bytes.
 */
export function mlpForward(parts: MlpParts, features: Float32Array, rows: number): Float32Array {
  const ROW_BLOCK = 4;
  const { inputDim: n, hiddenDim: H, w1, scale, shift, w2, b2 } = parts;
  const out = new Float32Array(rows * 2);
  const hidden = new Float64Array(ROW_BLOCK * H);
  /** hidden[row][unit] = relu(sum · scale + shift) for the block's four rows (an inner function: the source must stand alone). */
  const relu = (unit: number, s0: number, s1: number, s2: number, s3: number) => {
    const s = scale[unit];
    const t = shift[unit];
    const v0 = s0 * s + t;
    const v1 = s1 * s + t;
    const v2 = s2 * s + t;
    const v3 = s3 * s + t;
    hidden[unit] = v0 > 0 ? v0 : 0;
    hidden[H + unit] = v1 > 0 ? v1 : 0;
    hidden[2 * H + unit] = v2 > 0 ? v2 : 0;
    hidden[3 * H + unit] = v3 > 0 ? v3 : 0;
  };
  for (let r0 = 0; r0 < rows; r0 += ROW_BLOCK) {
    const count = Math.min(ROW_BLOCK, rows - r0);
    const o0 = r0 * n;
    const o1 = (r0 + Math.min(1, count - 1)) * n; // repeat the last row when the block is short
    const o2 = (r0 + Math.min(2, count - 1)) * n;
    const o3 = (r0 + Math.min(3, count - 1)) * n;
    // Two hidden units per pass: each feature value loaded serves two weights, each weight four rows (eight
    // running sums; ~1.5× the one-unit loop in V8). Every sum still runs over k in order, so the bytes are the same.
    for (let h = 0; h < H; h += 2) {
      const g = h + 1 < H ? h + 1 : h; // an odd last unit is computed twice
      const wo = h * n;
      const wg = g * n;
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      let c0 = 0;
      let c1 = 0;
      let c2 = 0;
      let c3 = 0;
      for (let k = 0; k < n; k++) {
        const w = w1[wo + k];
        const v = w1[wg + k];
        const x0 = features[o0 + k];
        const x1 = features[o1 + k];
        const x2 = features[o2 + k];
        const x3 = features[o3 + k];
        a0 += x0 * w;
        a1 += x1 * w;
        a2 += x2 * w;
        a3 += x3 * w;
        c0 += x0 * v;
        c1 += x1 * v;
        c2 += x2 * v;
        c3 += x3 * v;
      }
      relu(h, a0, a1, a2, a3);
      relu(g, c0, c1, c2, c3);
    }
    for (let i = 0; i < count; i++) {
      let z0 = b2[0];
      let z1 = b2[1];
      const ho = i * H;
      for (let h = 0; h < H; h++) {
        const v = hidden[ho + h];
        z0 += v * w2[h];
        z1 += v * w2[H + h];
      }
      // softmax over two logits, stable form
      const m = z0 > z1 ? z0 : z1;
      const e0 = Math.exp(z0 - m);
      const e1 = Math.exp(z1 - m);
      const sum = e0 + e1;
      out[(r0 + i) * 2] = e0 / sum;
      out[(r0 + i) * 2 + 1] = e1 / sum;
    }
  }
  return out;
}
