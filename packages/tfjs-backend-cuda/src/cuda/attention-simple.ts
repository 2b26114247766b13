import type { CudaSource } from '../kernel-library.js';

/**
 * Packed varlen attention on CUDA cores, exact fp32 arithmetic for any storage type and any head size HD
 * (compile-time, ≤ 256): the fp32 path, and the fallback for head sizes the tensor-core kernel does not take.
 * Grid (query tiles of 64, segments, heads); one thread per query keeps q and its output row in registers
 * and walks the segment's keys in shared-memory tiles of 32 with an online (flash) softmax. Only keys of
 * the query's own segment are read: no padding work across segments, no cross-segment attention.
 */
export const attentionSimpleSource: CudaSource = {
  name: 'attention_simple',
  code: String.raw`
#ifndef HD
#define HD 64
#endif
#define BQ 64
#define BK 32
extern "C" __global__ void __launch_bounds__(BQ) attention_simple(const T* qkv, const int* cu, const float* slopes, T* out, int H, float scale, int useAlibi) {
  __shared__ float Ks[BK][HD];
  __shared__ float Vs[BK][HD];
  const int seg = blockIdx.y, h = blockIdx.z;
  const int start = cu[seg], len = cu[seg + 1] - start;
  const int q0 = blockIdx.x * BQ;
  if (q0 >= len) return;
  const int d = H * HD;
  const long long width = 3LL * d;
  const int qi = q0 + threadIdx.x;
  const bool active = qi < len;
  const float slope = useAlibi ? slopes[h] : 0.f;
  float q[HD], acc[HD];
  #pragma unroll
  for (int c = 0; c < HD; c++) {
    q[c] = active ? toF(qkv[(start + qi) * width + h * HD + c]) * scale : 0.f;
    acc[c] = 0.f;
  }
  float m = -INFINITY, l = 0.f;
  for (int k0 = 0; k0 < len; k0 += BK) {
    __syncthreads();
    for (int e = threadIdx.x; e < BK * HD; e += BQ) {
      int r = e / HD, c = e % HD, key = k0 + r;
      bool ok = key < len;
      const T* row = qkv + (start + (ok ? key : 0)) * width + h * HD + c;
      Ks[r][c] = ok ? toF(row[d]) : 0.f;
      Vs[r][c] = ok ? toF(row[2 * d]) : 0.f;
    }
    __syncthreads();
    const int kn = min(BK, len - k0);
    float s[BK];
    float tileMax = -INFINITY;
    #pragma unroll
    for (int j = 0; j < BK; j++) {
      float dot = 0.f;
      #pragma unroll
      for (int c = 0; c < HD; c++) dot += q[c] * Ks[j][c];
      dot -= slope * fabsf((float)(qi - (k0 + j)));
      s[j] = j < kn ? dot : -INFINITY;
      tileMax = fmaxf(tileMax, s[j]);
    }
    const float mNew = fmaxf(m, tileMax);
    const float correction = expf(m - mNew);
    l *= correction;
    #pragma unroll
    for (int c = 0; c < HD; c++) acc[c] *= correction;
    #pragma unroll
    for (int j = 0; j < BK; j++) {
      float p = expf(s[j] - mNew);
      l += p;
      #pragma unroll
      for (int c = 0; c < HD; c++) acc[c] += p * Vs[j][c];
    }
    m = mNew;
  }
  if (!active) return;
  const float inv = 1.f / l;
  T* o = out + (long long)(start + qi) * d + h * HD;
  #pragma unroll
  for (int c = 0; c < HD; c++) o[c] = fromF(acc[c] * inv);
}
`,
};
