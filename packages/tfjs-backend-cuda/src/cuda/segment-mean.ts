import type { CudaSource } from '../kernel-library.js';

/**
 * Per-segment column means of x [N, d] → [S, d]: one thread per (segment, column) adds that segment's
 * rows in order, so a segment's mean depends on its own rows only (bit-identical in any batch).
 */
export const segmentMeanSource: CudaSource = {
  name: 'segment_mean',
  code: String.raw`
extern "C" __global__ void segment_mean(const T* x, const int* cu, T* out, int d, int skipStart, int skipEnd) {
  int seg = blockIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= d) return;
  int start = cu[seg] + skipStart, end = cu[seg + 1] - skipEnd;
  float sum = 0.f;
  for (int r = start; r < end; r++) sum += toF(x[(long long)r * d + c]);
  out[(long long)seg * d + c] = fromF(sum / (float)(end - start));
}
`,
};
