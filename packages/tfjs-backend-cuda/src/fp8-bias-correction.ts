// fp8 bias correction, in plain TypeScript: the reference the GPU test suite checks fp8_bias_correction against,
// tested on the CPU in CI.
//
// An FP8 GEMM multiplies by Q(W) = W + ΔW, the weight rounded to E4M3 once at load, so every output row carries
// x·ΔW. Over a sequence that error does not average out — ΔW is the same for every token — and a mean embedding
// moves by x̄·ΔW, x̄ being the sequence's mean input row. A study of ESM-2 3B with random weights (fake
// quantisation in PyTorch, docs/benchmarks/cuda.md) put 90 % of the fp8 error on the weights' rounding and showed
// the part common to all inputs removable: with b' = b − x̄_cal·ΔW, x̄_cal the mean input row over a fixed
// calibration set, 1 − cosine to fp32 fell from 3.6 × 10⁻³ to 1.1 × 10⁻³ (Nagel et al. 2019's bias correction,
// with calibration data in place of batch-norm statistics). It costs nothing per batch, and it is the same for
// every batch: results stay independent of batch neighbours.
import { e4m3ToNumber, numberToE4M3, quantizeE4M3 } from './fp8.js';

/**
 * The corrected bias b' = b − mean·(Q(W) − W) of a weight W [inner, cols] (row-major, the values as stored),
 * quantised as the backend does: one scale per output channel, or one for the whole weight (`perTensor`).
 */
export function fp8CorrectedBias(weight: ArrayLike<number>, inner: number, cols: number, mean: ArrayLike<number>, bias: ArrayLike<number> | undefined, perTensor: boolean): Float64Array {
  const tensorScale = perTensor ? quantizeE4M3(weight).scale : 0;
  const out = new Float64Array(cols);
  for (let c = 0; c < cols; c++) {
    const column = Array.from({ length: inner }, (_, k) => weight[k * cols + c]);
    const scale = perTensor ? tensorScale : quantizeE4M3(column).scale;
    let error = 0;
    column.forEach((w, k) => (error += mean[k] * (e4m3ToNumber(numberToE4M3(Math.fround(w / scale))) * scale - w)));
    out[c] = (bias ? bias[c] : 0) - error;
  }
  return out;
}
