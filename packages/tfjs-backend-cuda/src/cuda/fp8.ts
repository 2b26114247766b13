import type { CudaSource } from '../kernel-library.js';

/** 16-byte words of a row each thread of the *_regs quantisation kernels keeps in registers (see quantizeRowInRegisters). */
export const ROW_WORDS_PER_THREAD = 4;

/**
 * E4M3 helpers shared by the kernels that write fp8 (see src/fp8.ts for the arithmetic): a row's scale is
 * amax / 448 (1 for an all-zero row) and its bytes are e4m3(v / scale), round to nearest even, saturating.
 */
export const fp8Helpers = String.raw`
#include <cuda_fp8.h>
__device__ __forceinline__ unsigned char toE4M3(float v) { return (unsigned char)__nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3); }
__device__ __forceinline__ float fromE4M3(unsigned char q) { return __half2float(__half(__nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)q, __NV_E4M3))); }
__device__ __forceinline__ float e4m3Scale(float amax) { return amax > 0.f ? __fdiv_rn(amax, 448.f) : 1.f; }
// Two values as two E4M3 bytes (a the lower): one conversion instruction for both, each rounded as toE4M3 rounds it.
__device__ __forceinline__ unsigned short toE4M3Pair(float a, float b) {
  return (unsigned short)__nv_cvt_float2_to_fp8x2(make_float2(a, b), __NV_SATFINITE, __NV_E4M3);
}
// VEC values (4 or 8) as VEC E4M3 bytes stored at q (VEC-byte aligned), converted in pairs and packed in registers:
// the bytes of toE4M3 one by one, in a quarter of the conversions and byte moves.
__device__ __forceinline__ void storeE4M3Values(unsigned char* q, const float* e) {
  const unsigned lo = toE4M3Pair(e[0], e[1]) | ((unsigned)toE4M3Pair(e[2], e[3]) << 16);
  if constexpr (VEC == 8) *reinterpret_cast<uint2*>(q) = make_uint2(lo, toE4M3Pair(e[4], e[5]) | ((unsigned)toE4M3Pair(e[6], e[7]) << 16));
  else *reinterpret_cast<unsigned*>(q) = lo;
}
// VEC elements of a 16-byte word of T as VEC bytes of e4m3(v / scale), stored at q (VEC-byte aligned).
__device__ __forceinline__ void storeE4M3Word(unsigned char* q, const float* v, float scale) {
  float e[VEC];
  #pragma unroll
  for (int k = 0; k < VEC; k++) e[k] = __fdiv_rn(v[k], scale);
  storeE4M3Values(q, e);
}
// v / scale (scale > 0) by Markstein's sequence on recip = __frcp_rn(scale): one multiplication and two FMAs where a
// correctly rounded division takes ~10 instructions and a branch. For every finite v with |v| ≤ 2^100 its E4M3 byte
// is __fdiv_rn's (the same float for quotients in [2^-10, 2^20]; below, both round to ±0; above, both saturate):
// checked for every such float v and nine scales (tools/bench/fp8/markstein-division.c). For bounded values only: a
// layer norm's output, and a row quantised with its own amax (quotients ≤ ~448; the tool's rows mode); other kernels
// keep __fdiv_rn.
__device__ __forceinline__ float quotientOfBounded(float v, float scale, float recip) {
  const float q = __fmul_rn(v, recip);
  return copysignf(__fmaf_rn(__fmaf_rn(-q, scale, v), recip, q), v);
}
// storeE4M3Word for bounded values (quotientOfBounded), recip = __frcp_rn(scale).
__device__ __forceinline__ void storeE4M3WordBounded(unsigned char* q, const float* v, float scale, float recip) {
  float e[VEC];
  #pragma unroll
  for (int k = 0; k < VEC; k++) e[k] = quotientOfBounded(v[k], scale, recip);
  storeE4M3Values(q, e);
}
// Sum over the block (every thread gets it) in a fixed order: lanes by shuffles, then the warps in order.
__device__ float blockSum(float v, float* scratch) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  int warps = (blockDim.x + 31) >> 5;
  float total = 0.f;
  for (int w = 0; w < warps; w++) total += scratch[w];
  return total;
}
// Largest value over the block (every thread gets it); scratch holds 32 floats.
__device__ float blockMax(float v, float* scratch) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  int warps = (blockDim.x + 31) >> 5;
  float m = 0.f;
  for (int w = 0; w < warps; w++) m = fmaxf(m, scratch[w]);
  return m;
}
`;

/**
 * The fp8 path's own kernels: row-wise quantisation of a matrix (optionally through the erf GELU: the fc1
 * epilogue writes fc2's fp8 input), the one-time quantisation of a weight per output channel (transposed to
 * [out, in], the K-major layout cuBLASLt's FP8 GEMMs take), reading fp8 rows back into T, and the scale/bias/
 * residual epilogue for GEMMs whose scaling cuBLASLt could not fuse.
 */
export const fp8Source: CudaSource = {
  name: 'fp8',
  code: fp8Helpers + String.raw`
// One block per row of cols values: pass 1 finds the row's largest |v| (after the GELU when GELU), pass 2 writes
// the bytes (the row is re-read from L2), then the scale. 16-byte words when cols is divisible by VEC. The values
// are first finished as an FP8 GEMM's epilogue would (each only when its pointer is set): v·rowScale[r]·colScale[c]
// + bias[c], so fc1's GEMM needs no epilogue pass of its own.
template <bool GELU>
__device__ __forceinline__ float finish(float v, long long row, int c, const T* bias, const float* rowScale, const float* colScale) {
  if (rowScale) v *= rowScale[row] * colScale[c];
  if (bias) v += toF(bias[c]);
  return GELU ? geluErf(v) : v;
}
template <bool GELU, bool WORDS>
__device__ void quantizeRow(const T* x, unsigned char* q, float* scale, int cols, const T* bias, const float* rowScale, const float* colScale) {
  __shared__ float scratch[32];
  const long long row = blockIdx.x;
  const T* xr = x + row * cols;
  unsigned char* qr = q + row * cols;
  float m = 0.f;
  if (WORDS) {
    for (int w = threadIdx.x; w < cols / VEC; w += blockDim.x) {
      uint4 raw = reinterpret_cast<const uint4*>(xr)[w];
      const T* e = reinterpret_cast<const T*>(&raw);
      #pragma unroll
      for (int k = 0; k < VEC; k++) m = fmaxf(m, fabsf(finish<GELU>(toF(e[k]), row, w * VEC + k, bias, rowScale, colScale)));
    }
  } else {
    for (int i = threadIdx.x; i < cols; i += blockDim.x) m = fmaxf(m, fabsf(finish<GELU>(toF(xr[i]), row, i, bias, rowScale, colScale)));
  }
  const float s = e4m3Scale(blockMax(m, scratch));
  if (WORDS) {
    for (int w = threadIdx.x; w < cols / VEC; w += blockDim.x) {
      uint4 raw = reinterpret_cast<const uint4*>(xr)[w];
      const T* e = reinterpret_cast<const T*>(&raw);
      float v[VEC];
      #pragma unroll
      for (int k = 0; k < VEC; k++) v[k] = finish<GELU>(toF(e[k]), row, w * VEC + k, bias, rowScale, colScale);
      storeE4M3Word(qr + w * VEC, v, s);
    }
  } else {
    for (int i = threadIdx.x; i < cols; i += blockDim.x) qr[i] = toE4M3(__fdiv_rn(finish<GELU>(toF(xr[i]), row, i, bias, rowScale, colScale), s));
  }
  if (threadIdx.x == 0) scale[row] = s;
}
// The same row quantisation for rows of at most ROW_WORDS_PER_THREAD · blockDim.x 16-byte words (cols divisible by
// VEC): each thread keeps its words, finished, in registers between the amax and the write, so the row is read from
// memory and finished (scales, bias, erf GELU) once instead of twice. Same values, same max, same rounding as
// quantizeRow: the same bytes. fc1's GELU output (10,240 wide in ESM-2 3B) is the costliest fp8 kernel (18.9 ms of a
// 106.8 ms 16K-token forward, 2026-11-25), and the re-reading kernel evaluates each erf twice.
constexpr int ROW_WORDS_PER_THREAD = ${ROW_WORDS_PER_THREAD};
// The row's words finished by wordOf(w, v) (v: word w's VEC values), kept in registers between the amax and the
// write, into row "row" of q and scale. Every *_regs kernel is this with its own way of finishing a word.
template <typename WordOf>
__device__ __forceinline__ void quantizeWordsInRegisters(unsigned char* q, float* scale, long long row, int words, WordOf wordOf) {
  __shared__ float scratch[32];
  unsigned char* qr = q + row * words * VEC;
  float v[ROW_WORDS_PER_THREAD][VEC];
  float m = 0.f;
  #pragma unroll
  for (int j = 0; j < ROW_WORDS_PER_THREAD; j++) {
    const int w = threadIdx.x + j * blockDim.x;
    if (w < words) {
      wordOf(w, v[j]);
      #pragma unroll
      for (int k = 0; k < VEC; k++) m = fmaxf(m, fabsf(v[j][k]));
    }
  }
  const float s = e4m3Scale(blockMax(m, scratch));
  // Every value of the row is at most its amax = 448·s, so each quotient is at most ~448: Markstein's sequence then
  // gives __fdiv_rn's float (markstein-division.c --rows: every v, 158 scales in [2^-60, 2^60], none differs) for
  // ~4 instructions instead of ~10 and a branch. Outside that range (no real activation row) the slow division.
  const bool bounded = s >= 0x1p-60f && s <= 0x1p60f;
  const float recip = __frcp_rn(s);
  #pragma unroll
  for (int j = 0; j < ROW_WORDS_PER_THREAD; j++) {
    const int w = threadIdx.x + j * blockDim.x;
    if (w < words) {
      if (bounded) storeE4M3WordBounded(qr + w * VEC, v[j], s, recip);
      else storeE4M3Word(qr + w * VEC, v[j], s);
    }
  }
  if (threadIdx.x == 0) scale[row] = s;
}
template <bool GELU>
__device__ void quantizeRowInRegisters(const T* x, unsigned char* q, float* scale, int cols, const T* bias, const float* rowScale, const float* colScale) {
  const long long row = blockIdx.x;
  const uint4* xr = reinterpret_cast<const uint4*>(x + row * cols);
  quantizeWordsInRegisters(q, scale, row, cols / VEC, [&](int w, float* v) {
    uint4 raw = xr[w];
    const T* e = reinterpret_cast<const T*>(&raw);
    #pragma unroll
    for (int k = 0; k < VEC; k++) v[k] = finish<GELU>(toF(e[k]), row, w * VEC + k, bias, rowScale, colScale);
  });
}
#define QUANTIZE_KERNEL(name, gelu, words) \
  extern "C" __global__ void name(const T* x, unsigned char* q, float* scale, int cols, const T* bias, const float* rowScale, const float* colScale) { \
    quantizeRow<gelu, words>(x, q, scale, cols, bias, rowScale, colScale); }
QUANTIZE_KERNEL(quantize_rows, false, false)
QUANTIZE_KERNEL(quantize_rows_vec, false, true)
QUANTIZE_KERNEL(gelu_quantize_rows, true, false)
QUANTIZE_KERNEL(gelu_quantize_rows_vec, true, true)
#define QUANTIZE_IN_REGISTERS_KERNEL(name, gelu) \
  extern "C" __global__ void name(const T* x, unsigned char* q, float* scale, int cols, const T* bias, const float* rowScale, const float* colScale) { \
    quantizeRowInRegisters<gelu>(x, q, scale, cols, bias, rowScale, colScale); }
QUANTIZE_IN_REGISTERS_KERNEL(quantize_rows_regs, false)
QUANTIZE_IN_REGISTERS_KERNEL(gelu_quantize_rows_regs, true)
// GeGLU and fc2's fp8 rows in one pass (DNABERT-S's feed-forward in fp8). Row r of x is [gate | up], f values each;
// out = geluErf(gate) · up rounded to T exactly as geglu_vec writes it, then quantised as quantize_rows_regs
// quantises that T row: the same bytes as the two kernels, without writing and re-reading the f-wide T row.
// f divisible by VEC, at most ROW_WORDS_PER_THREAD · blockDim.x words; one block per row.
extern "C" __global__ void geglu_quantize_rows_regs(const T* x, unsigned char* q, float* scale, int f) {
  const long long row = blockIdx.x;
  const uint4* gate = reinterpret_cast<const uint4*>(x + row * 2 * f);
  const uint4* up = reinterpret_cast<const uint4*>(x + row * 2 * f + f);
  quantizeWordsInRegisters(q, scale, row, f / VEC, [&](int w, float* v) {
    uint4 gateRaw = gate[w], upRaw = up[w];
    const T* g = reinterpret_cast<const T*>(&gateRaw);
    const T* u = reinterpret_cast<const T*>(&upRaw);
    #pragma unroll
    for (int k = 0; k < VEC; k++) v[k] = toF(fromF(geluErf(toF(g[k])) * toF(u[k])));
  });
}

// y[r, c] = fp8 q[r, c] · scale[r] (scale[0] for static rows: perRow 0), in T (a tensor whose only up-to-date form
// is its fp8 rows).
extern "C" __global__ void dequantize_rows(const unsigned char* q, const float* scale, T* y, long long n, int cols, int perRow) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = fromF(fromE4M3(q[i]) * scale[perRow ? i / cols : 0]);
}

// scale[c] = e4m3Scale(max_k |w[k, c]|) for W [inner, cols]: blocks of 32 columns × 8 slices of k (reads
// coalesced along the columns), the slices' maxima combined in shared memory.
extern "C" __global__ void weight_column_scales(const T* w, float* scale, int inner, int cols) {
  __shared__ float part[8][32];
  const int c = blockIdx.x * 32 + threadIdx.x, s = threadIdx.y;
  float m = 0.f;
  if (c < cols) for (int k = s; k < inner; k += 8) m = fmaxf(m, fabsf(toF(w[(long long)k * cols + c])));
  part[s][threadIdx.x] = m;
  __syncthreads();
  if (s != 0 || c >= cols) return;
  for (int j = 1; j < 8; j++) m = fmaxf(m, part[j][threadIdx.x]);
  scale[c] = e4m3Scale(m);
}

// w8[c, k] = e4m3(w[k, c] / scale[c · scaleStride]): W [inner, cols] quantised per output channel (stride 1) or with
// one scale (stride 0) and transposed to [cols, inner], through 32×32 tiles in shared memory so that reads and
// writes coalesce. Block (32, 8).
extern "C" __global__ void weight_quantize_transposed(const T* w, const float* scale, unsigned char* w8, int inner, int cols, int scaleStride) {
  __shared__ float tile[32][33];
  const int c = blockIdx.x * 32 + threadIdx.x;
  for (int j = threadIdx.y; j < 32; j += blockDim.y) {
    int k = blockIdx.y * 32 + j;
    if (k < inner && c < cols) tile[j][threadIdx.x] = toF(w[(long long)k * cols + c]);
  }
  __syncthreads();
  const int k2 = blockIdx.y * 32 + threadIdx.x;
  for (int j = threadIdx.y; j < 32; j += blockDim.y) {
    int c2 = blockIdx.x * 32 + j;
    if (c2 < cols && k2 < inner) w8[(long long)c2 * inner + k2] = toE4M3(__fdiv_rn(tile[threadIdx.x][j], scale[c2 * scaleStride]));
  }
}

// ---- Static scales (src/fp8-static-scales.ts has the arithmetic and why) ----
// out[0] = the largest of n values (a weight's per-channel scales: its per-tensor scale; or per-column bounds).
// One block.
extern "C" __global__ void max_of(const float* values, int n, float* out) {
  __shared__ float scratch[32];
  float m = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) m = fmaxf(m, values[i]);
  m = blockMax(m, scratch);
  if (threadIdx.x == 0) out[0] = m;
}
// A layer norm's output bounds from gamma and beta: bounds[0] = its per-tensor dequantisation scale, bounds[1] =
// the bound of its rows' 2-norm as an FP8 GEMM reads them (layerNormFp8Bounds). One block.
extern "C" __global__ void layer_norm_fp8_bounds(const T* gamma, const T* beta, int d, float* bounds) {
  __shared__ float scratch[32];
  const float rootD = sqrtf((float)d), rootDm1 = sqrtf((float)(d - 1));
  float element = 0.f, gammaMax = 0.f, betaSquares = 0.f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    const float g = fabsf(toF(gamma[i])), b = toF(beta[i]);
    element = fmaxf(element, __fadd_rn(__fmul_rn(g, rootDm1), fabsf(b)));
    gammaMax = fmaxf(gammaMax, g);
    betaSquares = __fadd_rn(betaSquares, __fmul_rn(b, b));
  }
  element = blockMax(element, scratch);
  gammaMax = blockMax(gammaMax, scratch);
  betaSquares = blockSum(betaSquares, scratch);
  if (threadIdx.x != 0) return;
  const float s = e4m3Scale(element);
  bounds[0] = s;
  bounds[1] = __fadd_rn(__fmul_rn(1.0625f, __fadd_rn(__fmul_rn(gammaMax, rootD), sqrtf(betaSquares))), __fmul_rn(__fmul_rn(rootD, 0.0009765625f), s));
}
// bound[c] = |(x·W)_c + b_c| bounded for rows x of 2-norm ≤ inBounds[1], W [inner, cols] read as E4M3 with the
// per-tensor scale wScale[0] (linearOutputBound): blocks of 32 columns × 8 slices of k, as weight_column_scales.
extern "C" __global__ void linear_fp8_column_bounds(const T* w, const T* bias, const float* wScale, const float* inBounds, float* bound, int inner, int cols) {
  __shared__ float part[8][32];
  const int c = blockIdx.x * 32 + threadIdx.x, s = threadIdx.y;
  float squares = 0.f;
  if (c < cols) for (int k = s; k < inner; k += 8) { const float v = toF(w[(long long)k * cols + c]); squares = __fadd_rn(squares, __fmul_rn(v, v)); }
  part[s][threadIdx.x] = squares;
  __syncthreads();
  if (s != 0 || c >= cols) return;
  for (int j = 1; j < 8; j++) squares = __fadd_rn(squares, part[j][threadIdx.x]);
  const float subnormal = __fmul_rn(__fmul_rn(sqrtf((float)inner), 0.0009765625f), wScale[0]);
  const float norm = __fadd_rn(__fmul_rn(1.0625f, sqrtf(squares)), subnormal);
  bound[c] = __fadd_rn(__fmul_rn(norm, inBounds[1]), bias ? fabsf(toF(bias[c])) : 0.f);
}
// From the largest column bound (scales[0], max_of's output): scales[1] = the output's dequantisation scale for a
// bound of max(scales[0]·factor, floor) (fc1's GELU: factor 1, floor 0.17, geluFp8OutputScale; attention: factor
// 1 + 2⁻⁶, floor 0, attentionFp8OutputScale), scales[2] = its reciprocal, what the writer multiplies a value by
// before rounding it to E4M3 (cuBLASLt's D scale). One thread.
extern "C" __global__ void fp8_output_scales(float* scales, float factor, float floor) {
  const float s = e4m3Scale(fmaxf(__fmul_rn(scales[0], factor), floor));
  scales[1] = s;
  scales[2] = __frcp_rn(s);
}
// out[r] = value[0] for r < n: a per-tensor scale as the per-row scales of fp8 rows (an outer-vector GEMM's input).
extern "C" __global__ void fill_from(float* out, const float* value, int n) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) out[r] = value[0];
}

// y = y · rowScale[r] · colScale[c] + bias[c] + residual[r, c], each term only when its pointer is not null: the
// epilogue of an FP8 GEMM whose scales or bias cuBLASLt did not apply itself. Grid (rows, ⌈words / block⌉): one
// 16-byte word per thread, no 64-bit division (cols divisible by VEC; fp8_epilogue below otherwise).
extern "C" __global__ void fp8_epilogue_vec(T* y, const float* rowScale, const float* colScale, const T* bias, const T* residual, int cols) {
  const int w = blockIdx.y * blockDim.x + threadIdx.x;
  if (w >= cols / VEC) return;
  const long long row = blockIdx.x, at = row * cols + (long long)w * VEC;
  uint4 yv = *reinterpret_cast<const uint4*>(y + at), bv = make_uint4(0, 0, 0, 0), rv = make_uint4(0, 0, 0, 0);
  if (bias) bv = reinterpret_cast<const uint4*>(bias)[w];
  if (residual) rv = *reinterpret_cast<const uint4*>(residual + at);
  T* e = reinterpret_cast<T*>(&yv);
  const T* b = reinterpret_cast<const T*>(&bv);
  const T* r = reinterpret_cast<const T*>(&rv);
  const float rs = rowScale ? rowScale[row] : 1.f;
  #pragma unroll
  for (int k = 0; k < VEC; k++) {
    float v = toF(e[k]);
    if (rowScale) v *= rs * colScale[w * VEC + k];
    if (bias) v += toF(b[k]);
    if (residual) v += toF(r[k]);
    e[k] = fromF(v);
  }
  *reinterpret_cast<uint4*>(y + at) = yv;
}
extern "C" __global__ void fp8_epilogue(T* y, const float* rowScale, const float* colScale, const T* bias, const T* residual, long long n, int cols) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long r = i / cols;
  int c = (int)(i - r * cols);
  float v = toF(y[i]);
  if (rowScale) v *= rowScale[r] * colScale[c];
  if (bias) v += toF(bias[c]);
  if (residual) v += toF(residual[i]);
  y[i] = fromF(v);
}
`,
};
