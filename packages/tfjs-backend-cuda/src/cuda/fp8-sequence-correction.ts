import type { CudaSource } from '../kernel-library.js';
import { fp8Helpers } from './fp8.js';

/**
 * fp8 per-sequence correction (src/fp8-sequence-correction.ts has the arithmetic and why): a weight's rounding
 * error ΔW = Q(W) − W, each sequence's mean input row as the FP8 GEMM read it, and the correction rows taken off
 * the sequence's output rows. Every sum runs over one sequence's rows in order: a row's numbers never depend on
 * its batch.
 */
export const fp8SequenceCorrectionSource: CudaSource = {
  name: 'fp8-sequence-correction',
  code: fp8Helpers + String.raw`
// out[k, c] = w8[c, k]·scale[c·scaleStride] − w[k, c]: W [inner, cols] as stored, w8 its E4M3 copy [cols, inner].
extern "C" __global__ void fp8_weight_error(const T* w, const unsigned char* w8, const float* scale, int scaleStride, T* out, int inner, int cols) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)inner * cols) return;
  const int k = (int)(i / cols), c = (int)(i % cols);
  out[i] = fromF(__fsub_rn(__fmul_rn(fromE4M3(w8[(long long)c * inner + k]), scale[c * scaleStride]), toF(w[i])));
}
// out[s, c] = mean over the rows r of segment s of q[r, c]·scales[r·scaleStride] (E4M3 rows and their scales).
extern "C" __global__ void fp8_segment_mean(const unsigned char* q, const float* scales, int scaleStride, const int* cu, T* out, int cols) {
  const int s = blockIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const int start = cu[s], end = cu[s + 1];
  float sum = 0.f;
  for (int r = start; r < end; r++) sum = __fmaf_rn(fromE4M3(q[(long long)r * cols + c]), scales[(long long)r * scaleStride], sum);
  out[(long long)s * cols + c] = fromF(__fdiv_rn(sum, (float)(end - start)));
}
// y[r, c] −= corr[s, c] for every row r of segment s.
extern "C" __global__ void subtract_segment_rows(T* y, const T* corr, const int* cu, int cols) {
  const int s = blockIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const float v = toF(corr[(long long)s * cols + c]);
  for (int r = cu[s]; r < cu[s + 1]; r++) {
    const long long i = (long long)r * cols + c;
    y[i] = fromF(__fsub_rn(toF(y[i]), v));
  }
}
`,
};
