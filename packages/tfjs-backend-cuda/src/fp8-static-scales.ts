// Static fp8 scales: scales derived from a model's weights alone, never from a batch, so a token's bytes depend on
// its own row only (batch invariance) while the FP8 GEMM takes cuBLASLt's per-tensor scales — the mode in which it
// can also write its output as E4M3 (fc1's GELU output straight into fc2's fp8 input: no quantisation pass). Each
// bound below is a strict upper bound of the values it scales, so nothing saturates; it is loose (Cauchy–Schwarz:
// ~√d above a typical value), which E4M3's exponent absorbs: typical values land ~2⁵ below 448, far above 2⁻⁶.
// Plain TypeScript, in the kernels' fp32 steps: the reference the GPU test suite checks the kernels against.
import { e4m3Scale } from './fp8.js';

/** Largest relative change E4M3's rounding makes to a value in its normal range (half of a 2⁻³ step). */
export const e4m3RelativeStep = 2 ** -4;
/** Largest absolute change rounding makes below the normal range, in units of the scale (half of the 2⁻⁹ spacing). */
export const e4m3SubnormalHalfStep = 2 ** -10;
/** A bound of |GELU(v)| for v ≤ 0 (its minimum is −0.16997 at v ≈ −0.75). */
export const geluNegativeBound = 0.17;

/** What the fp8 path needs of a layer norm's output, from γ and β alone. */
export interface LayerNormFp8Bounds {
  /** Per-tensor dequantisation scale of the output rows: e4m3Scale of max_i |γ_i|·√(d−1) + |β_i|, since a
   * normalised row has |x̂_i| ≤ √(d−1). */
  scale: number;
  /** A bound of ‖row‖₂ as an FP8 GEMM reads it (after E4M3 rounding): ‖γ⊙x̂ + β‖₂ ≤ max|γ|·√d + ‖β‖₂, since ‖x̂‖₂ ≤ √d. */
  l2: number;
}

const f = Math.fround;

export function layerNormFp8Bounds(gamma: ArrayLike<number>, beta: ArrayLike<number>): LayerNormFp8Bounds {
  const d = gamma.length;
  const rootD = f(Math.sqrt(d));
  const rootDm1 = f(Math.sqrt(d - 1));
  let element = 0;
  let gammaMax = 0;
  let betaSquares = 0;
  for (let i = 0; i < d; i++) {
    const g = Math.abs(gamma[i]);
    element = Math.max(element, f(f(g * rootDm1) + Math.abs(beta[i])));
    gammaMax = Math.max(gammaMax, g);
    betaSquares = f(betaSquares + f(beta[i] * beta[i]));
  }
  const scale = e4m3Scale(element);
  const l2 = f(f(f(1 + e4m3RelativeStep) * f(f(gammaMax * rootD) + f(Math.sqrt(betaSquares)))) + f(f(rootD * e4m3SubnormalHalfStep) * scale));
  return { scale, l2 };
}

/** ‖W[:, c]‖₂ of each column of W [inner, cols] (row-major), in fp32. */
export function columnL2Norms(w: ArrayLike<number>, inner: number, cols: number): Float32Array {
  const out = new Float32Array(cols);
  for (let c = 0; c < cols; c++) {
    let squares = 0;
    for (let k = 0; k < inner; k++) squares = f(squares + f(w[k * cols + c] * w[k * cols + c]));
    out[c] = f(Math.sqrt(squares));
  }
  return out;
}

/**
 * A bound of |(x·W)_c + b_c| over the columns c in [first, first + count), where x's rows are bounded by `inputL2`
 * (layerNormFp8Bounds) and W is read as quantised with the per-tensor scale `weightScale`: Cauchy–Schwarz with
 * ‖W[:, c]‖₂ grown by E4M3's rounding.
 */
export function linearOutputBound(norms: ArrayLike<number>, bias: ArrayLike<number> | undefined, inner: number, weightScale: number, inputL2: number, first = 0, count = norms.length - first): number {
  const subnormal = f(f(f(Math.sqrt(inner)) * e4m3SubnormalHalfStep) * weightScale);
  let bound = 0;
  for (let c = first; c < first + count; c++) {
    const norm = f(f(f(1 + e4m3RelativeStep) * norms[c]) + subnormal);
    bound = Math.max(bound, f(f(norm * inputL2) + (bias ? Math.abs(bias[c]) : 0)));
  }
  return bound;
}

/**
 * The per-tensor dequantisation scale of GELU(x·W + b) written as E4M3 by the FP8 GEMM (fc1), x and W as in
 * linearOutputBound: |GELU(v)| ≤ max(v, 0.17).
 */
export function geluFp8OutputScale(norms: ArrayLike<number>, bias: ArrayLike<number> | undefined, inner: number, weightScale: number, inputL2: number): number {
  return e4m3Scale(Math.max(linearOutputBound(norms, bias, inner, weightScale, inputL2), f(geluNegativeBound)));
}

/** How far attention's output may exceed its values' bound: v and the probabilities are stored in bf16 (2⁻⁸ each at
 * most, rounding to nearest) and the fp32 arithmetic rounds too; 2⁻⁶ covers all of it. */
export const attentionOutputMargin = 1 + 2 ** -6;

/**
 * The per-tensor dequantisation scale of packed attention's output written as E4M3, from the qkv layer that made
 * its input [q | k | v] (norms, bias of all 3·d columns; x and W as in linearOutputBound). Each output of a head is
 * Σ_j p_j·v_j with p_j ≥ 0 and Σ p_j = 1, so it is bounded by the largest |v| of its column: the bound of qkv's
 * last third, with attentionOutputMargin for the roundings.
 */
export function attentionFp8OutputScale(norms: ArrayLike<number>, bias: ArrayLike<number> | undefined, inner: number, weightScale: number, inputL2: number): number {
  const d = norms.length / 3;
  return e4m3Scale(f(linearOutputBound(norms, bias, inner, weightScale, inputL2, 2 * d, d) * f(attentionOutputMargin)));
}
