import type { CudaSource } from '../kernel-library.js';
import { fp8Helpers } from './fp8.js';

/**
 * LayerNorm, one block per row: the row is held in shared memory as fp32, mean and then the biased
 * variance of the centred values are block reductions in fp32 (two passes, as torch's reference numerics).
 */
export const layerNormSource: CudaSource = {
  name: 'layer_norm',
  code: fp8Helpers + String.raw`
extern "C" __global__ void layer_norm(const T* x, const T* gamma, const T* beta, T* y, int d, float eps) {
  extern __shared__ float row[];
  __shared__ float scratch[32];
  const T* xr = x + (long long)blockIdx.x * d;
  T* yr = y + (long long)blockIdx.x * d;
  float sum = 0.f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) { float v = toF(xr[i]); row[i] = v; sum += v; }
  float mean = blockSum(sum, scratch) / d;
  float sq = 0.f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) { float c = row[i] - mean; sq += c * c; }
  float rstd = rsqrtf(blockSum(sq, scratch) / d + eps);
  for (int i = threadIdx.x; i < d; i += blockDim.x) yr[i] = fromF((row[i] - mean) * rstd * toF(gamma[i]) + toF(beta[i]));
}
// Rows of d = VEC·words ≤ 1024·VEC: each thread keeps one 16-byte word of the row in registers (no shared
// row, one load and one store per element), same two-pass fp32 statistics. FP8: the row is also written as e4m3
// bytes with the row's own scale (its largest |y| in fp32 / 448), or with the static per-tensor scale at qScale[0]
// (STATIC: src/fp8-static-scales.ts), the input of an FP8 GEMM, at no extra pass; the division by the scale as
// quotientOfBounded (a layer norm's output is bounded), the same bytes as a correctly rounded one.
template <bool FP8, bool STATIC>
__device__ __forceinline__ void layerNormVec(const T* x, const T* gamma, const T* beta, T* y, int d, float eps, unsigned char* q, float* qScale) {
  __shared__ float scratch[32];
  const int words = d / VEC, w = threadIdx.x;
  const bool active = w < words;
  float v[VEC];
  float sum = 0.f;
  if (active) {
    uint4 raw = reinterpret_cast<const uint4*>(x + (long long)blockIdx.x * d)[w];
    const T* e = reinterpret_cast<const T*>(&raw);
    #pragma unroll
    for (int k = 0; k < VEC; k++) { v[k] = toF(e[k]); sum += v[k]; }
  } else {
    #pragma unroll
    for (int k = 0; k < VEC; k++) v[k] = 0.f;
  }
  const float mean = blockSum(sum, scratch) / d;
  float sq = 0.f;
  if (active) {
    #pragma unroll
    for (int k = 0; k < VEC; k++) { v[k] -= mean; sq += v[k] * v[k]; }  // v centred: the output reuses it
  }
  const float rstd = rsqrtf(blockSum(sq, scratch) / d + eps);
  float amax = 0.f;
  if (active) {
    uint4 gv = reinterpret_cast<const uint4*>(gamma)[w], bv = reinterpret_cast<const uint4*>(beta)[w], ov;
    const T* g = reinterpret_cast<const T*>(&gv);
    const T* b = reinterpret_cast<const T*>(&bv);
    T* o = reinterpret_cast<T*>(&ov);
    #pragma unroll
    for (int k = 0; k < VEC; k++) { v[k] = v[k] * rstd * toF(g[k]) + toF(b[k]); o[k] = fromF(v[k]); amax = fmaxf(amax, fabsf(v[k])); }
    reinterpret_cast<uint4*>(y + (long long)blockIdx.x * d)[w] = ov;
  }
  if (!FP8) return;
  if (STATIC) {
    if (active) storeE4M3WordBounded(q + (long long)blockIdx.x * d + w * VEC, v, qScale[0], __frcp_rn(qScale[0]));
    return;
  }
  const float s = e4m3Scale(blockMax(amax, scratch));
  if (active) storeE4M3WordBounded(q + (long long)blockIdx.x * d + w * VEC, v, s, __frcp_rn(s));
  if (w == 0) qScale[blockIdx.x] = s;
}
// One warp per row, for rows of d = VEC·words with words ≤ 32·LN_WORDS: each lane keeps LN_WORDS 16-byte words of the
// row in registers, and the statistics are warp reductions (shuffles only: no shared memory, no __syncthreads, and
// eight rows per block instead of one). Same two-pass fp32 statistics as layerNormVec, summed in a fixed order that
// depends on d alone (lane-wise over its words, then the shuffle tree). FP8 as in layerNormVec; with WRITE_Y false
// only the E4M3 rows are written (the output is read only by FP8 GEMMs: 7.5 instead of 12.5 bytes of traffic a value).
#ifndef LN_WORDS
#define LN_WORDS 10
#endif
__device__ __forceinline__ float warpSum(float v) {
  #pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}
template <bool FP8, bool STATIC, bool WRITE_Y = true>
__device__ __forceinline__ void layerNormWarp(const T* x, const T* gamma, const T* beta, T* y, int rows, int d, float eps, unsigned char* q, float* qScale) {
  const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5), lane = threadIdx.x & 31;
  if (row >= rows) return;
  const int words = d / VEC;
  const uint4* xr = reinterpret_cast<const uint4*>(x + (long long)row * d);
  float v[LN_WORDS][VEC];
  #pragma unroll
  for (int i = 0; i < LN_WORDS; i++) {
    const int w = lane + 32 * i;
    uint4 raw = w < words ? xr[w] : make_uint4(0, 0, 0, 0);
    const T* e = reinterpret_cast<const T*>(&raw);
    #pragma unroll
    for (int k = 0; k < VEC; k++) v[i][k] = toF(e[k]);
  }
  float sum = 0.f;
  #pragma unroll
  for (int i = 0; i < LN_WORDS; i++)
    #pragma unroll
    for (int k = 0; k < VEC; k++) sum += v[i][k];
  const float mean = warpSum(sum) / d;
  float sq = 0.f;
  #pragma unroll
  for (int i = 0; i < LN_WORDS; i++) {
    if (lane + 32 * i >= words) continue;
    #pragma unroll
    for (int k = 0; k < VEC; k++) { v[i][k] -= mean; sq += v[i][k] * v[i][k]; }  // v centred: the output reuses it
  }
  const float rstd = rsqrtf(warpSum(sq) / d + eps);
  float amax = 0.f;
  uint4* yr = reinterpret_cast<uint4*>(y + (long long)row * d);
  #pragma unroll
  for (int i = 0; i < LN_WORDS; i++) {
    const int w = lane + 32 * i;
    if (w >= words) continue;
    uint4 gv = reinterpret_cast<const uint4*>(gamma)[w], bv = reinterpret_cast<const uint4*>(beta)[w], ov;
    const T* g = reinterpret_cast<const T*>(&gv);
    const T* b = reinterpret_cast<const T*>(&bv);
    T* o = reinterpret_cast<T*>(&ov);
    #pragma unroll
    for (int k = 0; k < VEC; k++) { v[i][k] = v[i][k] * rstd * toF(g[k]) + toF(b[k]); o[k] = fromF(v[i][k]); amax = fmaxf(amax, fabsf(v[i][k])); }
    if (WRITE_Y) yr[w] = ov;
  }
  if (!FP8) return;
  #pragma unroll
  for (int o = 16; o > 0; o >>= 1) if (!STATIC) amax = fmaxf(amax, __shfl_xor_sync(0xffffffff, amax, o));
  const float s = STATIC ? qScale[0] : e4m3Scale(amax), recip = __frcp_rn(s);
  #pragma unroll
  for (int i = 0; i < LN_WORDS; i++) {
    const int w = lane + 32 * i;
    if (w < words) storeE4M3WordBounded(q + (long long)row * d + w * VEC, v[i], s, recip);
  }
  if (lane == 0 && !STATIC) qScale[row] = s;
}
extern "C" __global__ void layer_norm_warp(const T* x, const T* gamma, const T* beta, T* y, int rows, int d, float eps) {
  layerNormWarp<false, false>(x, gamma, beta, y, rows, d, eps, nullptr, nullptr);
}
extern "C" __global__ void layer_norm_warp_fp8(const T* x, const T* gamma, const T* beta, T* y, int rows, int d, float eps, unsigned char* q, float* qScale) {
  layerNormWarp<true, false>(x, gamma, beta, y, rows, d, eps, q, qScale);
}
// Static scale: the rows' bytes with the one scale at staticScale[0] (layer_norm_fp8_bounds), no per-row scales.
extern "C" __global__ void layer_norm_warp_fp8_static(const T* x, const T* gamma, const T* beta, T* y, int rows, int d, float eps, unsigned char* q, float* staticScale) {
  layerNormWarp<true, true>(x, gamma, beta, y, rows, d, eps, q, staticScale);
}
// The same E4M3 rows and no T: for an output only FP8 GEMMs read (VnpLayerNormAttrs.linearInputOnly).
extern "C" __global__ void layer_norm_warp_fp8_static_rows(const T* x, const T* gamma, const T* beta, T* y, int rows, int d, float eps, unsigned char* q, float* staticScale) {
  layerNormWarp<true, true, false>(x, gamma, beta, y, rows, d, eps, q, staticScale);
}
extern "C" __global__ void layer_norm_vec(const T* x, const T* gamma, const T* beta, T* y, int d, float eps) {
  layerNormVec<false, false>(x, gamma, beta, y, d, eps, nullptr, nullptr);
}
extern "C" __global__ void layer_norm_vec_fp8(const T* x, const T* gamma, const T* beta, T* y, int d, float eps, unsigned char* q, float* qScale) {
  layerNormVec<true, false>(x, gamma, beta, y, d, eps, q, qScale);
}
extern "C" __global__ void layer_norm_vec_fp8_static(const T* x, const T* gamma, const T* beta, T* y, int d, float eps, unsigned char* q, float* staticScale) {
  layerNormVec<true, true>(x, gamma, beta, y, d, eps, q, staticScale);
}
`,
};
