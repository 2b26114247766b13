// fp8 per-sequence correction, in plain TypeScript: the reference the GPU test suite checks the cuda kernels
// against, tested on the CPU in CI.
//
// The bias correction (fp8-bias-correction.ts) takes the weight rounding's effect on a calibration set's mean input
// row out of every output: x̄_cal·ΔW, ΔW = Q(W) − W. What it leaves is (x̄_s − x̄_cal)·ΔW for a sequence s whose mean
// input row x̄_s differs from the calibration's — which the user's data decides (our calibration is phage proteins;
// a study with matched calibration and test proteins still left 1 − cosine at 1.1 × 10⁻³, with each sequence's own
// mean 0.44 × 10⁻³, docs/benchmarks/cuda.md). Here each sequence's own mean input row is used: after the FP8 GEMM,
// every row of sequence s takes −x̄_s·ΔW, x̄_s the mean of the sequence's rows as the GEMM read them (E4M3 times
// their scales). It costs a segment mean, one small GEMM ([S, inner]·ΔW, bf16) and a pass over the output per
// layer, and it depends on the row's own sequence only (batch invariance holds).
import { fp8CorrectedBias } from './fp8-bias-correction.js';

/**
 * The per-sequence correction rows [S, cols] (row-major) a linear layer's output takes: −x̄_s·(Q(W) − W) for each
 * segment s of `offsets` (cu_seqlens), x̄_s the mean of its rows of `x` [N, inner] (the values the GEMM multiplied),
 * W [inner, cols] quantised as the backend does (`perTensor`: one scale; else one per output channel).
 */
export function fp8SequenceCorrection(x: ArrayLike<number>, offsets: readonly number[], weight: ArrayLike<number>, inner: number, cols: number, perTensor: boolean): Float64Array {
  const segments = offsets.length - 1;
  const out = new Float64Array(segments * cols);
  for (let s = 0; s < segments; s++) {
    const mean = new Float64Array(inner);
    for (let r = offsets[s]; r < offsets[s + 1]; r++) for (let k = 0; k < inner; k++) mean[k] += x[r * inner + k];
    mean.forEach((v, k) => (mean[k] = v / (offsets[s + 1] - offsets[s])));
    out.set(fp8CorrectedBias(weight, inner, cols, mean, undefined, perTensor), s * cols);
  }
  return out;
}
