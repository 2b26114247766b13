import type { CudaSource } from '../kernel-library.js';

/**
 * Rotary embedding on the q and k thirds of a fused qkv [rows, 3d]: out = x·cos[p] + swapHalves(x)·sinSigned[p]
 * per head of hd columns, p = positions[row]; the v third is copied. One thread per output element.
 */
export const rotarySource: CudaSource = {
  name: 'rotary',
  code: String.raw`
extern "C" __global__ void rotary_qkv(const T* qkv, const T* cosT, const T* sinS, const int* positions, T* out, int rows, int d, int hd) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  int width = 3 * d;
  if (i >= (long long)rows * width) return;
  long long n = i / width;
  int c = (int)(i % width);
  if (c >= 2 * d) { out[i] = qkv[i]; return; }
  int j = c % hd, half = hd >> 1;
  int partner = j < half ? c + half : c - half;
  long long p = positions[n];
  float v = toF(qkv[i]) * toF(cosT[p * hd + j]) + toF(qkv[n * width + partner]) * toF(sinS[p * hd + j]);
  out[i] = fromF(v);
}
`,
};
