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
// The same on 16-byte words, when a word never straddles two head halves (half-head size divisible by VEC):
// one word of x, its partner word, and the cos / signed-sin words of the row's position per thread.
extern "C" __global__ void rotary_qkv_vec(const T* qkv, const T* cosT, const T* sinS, const int* positions, T* out, int rows, int d, int hd) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  int width = 3 * d, words = width / VEC;
  if (i >= (long long)rows * words) return;
  long long n = i / words;
  int c = (int)(i % words) * VEC;
  const T* row = qkv + n * width;
  uint4* dst = reinterpret_cast<uint4*>(out + n * width + c);
  if (c >= 2 * d) { *dst = *reinterpret_cast<const uint4*>(row + c); return; }
  int j = c % hd, half = hd >> 1;
  int partner = j < half ? c + half : c - half;
  long long p = positions[n];
  uint4 xv = *reinterpret_cast<const uint4*>(row + c);
  uint4 yv = *reinterpret_cast<const uint4*>(row + partner);
  uint4 cv = *reinterpret_cast<const uint4*>(cosT + p * hd + j);
  uint4 sv = *reinterpret_cast<const uint4*>(sinS + p * hd + j);
  uint4 ov;
  const T* xe = reinterpret_cast<const T*>(&xv);
  const T* ye = reinterpret_cast<const T*>(&yv);
  const T* ce = reinterpret_cast<const T*>(&cv);
  const T* se = reinterpret_cast<const T*>(&sv);
  T* oe = reinterpret_cast<T*>(&ov);
  #pragma unroll
  for (int k = 0; k < VEC; k++) oe[k] = fromF(toF(xe[k]) * toF(ce[k]) + toF(ye[k]) * toF(se[k]));
  *dst = ov;
}
`,
};
