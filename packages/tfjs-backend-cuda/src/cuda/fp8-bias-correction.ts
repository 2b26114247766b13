import type { CudaSource } from '../kernel-library.js';
import { fp8Helpers } from './fp8.js';

/**
 * fp8 bias correction (src/fp8-bias-correction.ts has the arithmetic and why): the column sums of a linear layer's
 * input over a calibration pass, and the bias that takes the weight rounding's effect on their mean out.
 */
export const fp8BiasCorrectionSource: CudaSource = {
  name: 'fp8-bias-correction',
  code: fp8Helpers + String.raw`
// sums[c] += Σ_r x[r, c]: one thread per column, rows in order (a calibration pass is small; the order is fixed).
extern "C" __global__ void column_sums_add(const T* x, int rows, int cols, float* sums) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; r++) s = __fadd_rn(s, toF(x[(long long)r * cols + c]));
  sums[c] = __fadd_rn(sums[c], s);
}
// out[c] = bias[c] − Σ_k mean[k]·(w8[c, k]·scale[c·scaleStride] − w[k, c]), mean[k] = sums[k]·meanScale: W [inner,
// cols] as stored, w8 its E4M3 copy [cols, inner] (weight_quantize_transposed). Blocks of 32 columns × 8 slices of
// k, as weight_column_scales; the slices are summed in order.
extern "C" __global__ void fp8_bias_correction(const T* w, const unsigned char* w8, const float* scale, int scaleStride, const float* sums, float meanScale, const T* bias, T* out, int inner, int cols) {
  __shared__ float part[8][32];
  const int c = blockIdx.x * 32 + threadIdx.x, s = threadIdx.y;
  float error = 0.f;
  if (c < cols) {
    const float sc = scale[c * scaleStride];
    for (int k = s; k < inner; k += 8) {
      const float rounded = __fmul_rn(fromE4M3(w8[(long long)c * inner + k]), sc);
      error = __fmaf_rn(__fmul_rn(sums[k], meanScale), __fsub_rn(rounded, toF(w[(long long)k * cols + c])), error);
    }
  }
  part[s][threadIdx.x] = error;
  __syncthreads();
  if (s != 0 || c >= cols) return;
  for (int j = 1; j < 8; j++) error = __fadd_rn(error, part[j][threadIdx.x]);
  out[c] = fromF(__fsub_rn(bias ? toF(bias[c]) : 0.f, error));
}
`,
};
