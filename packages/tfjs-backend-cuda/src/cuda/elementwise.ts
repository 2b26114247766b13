import type { CudaSource } from '../kernel-library.js';

/**
 * Element-wise kernels on storage type T, computed in fp32: binary ops with b of the same shape, a scalar,
 * or a row vector broadcast over the last axis; the erf GELU in place (the Linear epilogue; a 16-byte
 * vectorised variant for sizes divisible by VEC); GeGLU (also vectorised when f is divisible by VEC).
 */
export const elementwiseSource: CudaSource = {
  name: 'elementwise',
  code: String.raw`
// op: 0 add, 1 sub, 2 mul, 3 div. bMode: 0 same shape, 1 scalar, 2 row vector of bCols values.
extern "C" __global__ void binary(const T* a, const T* b, T* out, long long n, int bMode, int bCols, int op) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = toF(a[i]);
  float y = toF(b[bMode == 0 ? i : bMode == 1 ? 0 : i % bCols]);
  float r = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : x / y;
  out[i] = fromF(r);
}
extern "C" __global__ void gelu_inplace(T* x, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) x[i] = fromF(geluErf(toF(x[i])));
}
// The same on 16-byte words (n divisible by VEC): bandwidth-bound, so one uint4 load and store per thread.
extern "C" __global__ void gelu_inplace_vec(T* x, long long words) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= words) return;
  uint4 v = reinterpret_cast<uint4*>(x)[i];
  T* e = reinterpret_cast<T*>(&v);
  #pragma unroll
  for (int k = 0; k < VEC; k++) e[k] = fromF(geluErf(toF(e[k])));
  reinterpret_cast<uint4*>(x)[i] = v;
}
// x [rows, 2f] -> out [rows, f] = gelu(x[:, :f]) * x[:, f:]
extern "C" __global__ void geglu(const T* x, T* out, int rows, int f) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= (long long)rows * f) return;
  long long r = i / f;
  int c = (int)(i % f);
  const T* row = x + r * 2 * f;
  out[i] = fromF(geluErf(toF(row[c])) * toF(row[f + c]));
}
// The same on 16-byte words (f divisible by VEC): one uint4 of each half per thread, 32-bit index arithmetic
// (64-bit division per element made the scalar kernel run at ~4 % of the memory bandwidth).
extern "C" __global__ void geglu_vec(const T* x, T* out, int rows, int f) {
  int wordsPerRow = f / VEC;
  int w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w >= rows * wordsPerRow) return;
  int r = w / wordsPerRow;
  int c = (w - r * wordsPerRow) * VEC;
  const T* row = x + (long long)r * 2 * f;
  uint4 gate = *reinterpret_cast<const uint4*>(row + c);
  uint4 up = *reinterpret_cast<const uint4*>(row + f + c);
  const T* g = reinterpret_cast<const T*>(&gate);
  const T* u = reinterpret_cast<const T*>(&up);
  uint4 result;
  T* o = reinterpret_cast<T*>(&result);
  #pragma unroll
  for (int k = 0; k < VEC; k++) o[k] = fromF(geluErf(toF(g[k])) * toF(u[k]));
  reinterpret_cast<uint4*>(out)[w] = result;
}
// Copies a rows × cols block between row-major matrices of different row strides (concat, slices).
extern "C" __global__ void copy2d(const T* src, T* dst, int rows, int cols, int srcStride, int dstStride) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= (long long)rows * cols) return;
  long long r = i / cols;
  int c = (int)(i % cols);
  dst[r * dstStride + c] = src[r * srcStride + c];
}
// out [cols, rows] = in [rows, cols]ᵀ, through 32×32 shared-memory tiles so reads and writes coalesce.
extern "C" __global__ void transpose2d(const T* in, T* out, int rows, int cols) {
  __shared__ T tile[32][33];
  int c = blockIdx.x * 32 + threadIdx.x;
  for (int j = threadIdx.y; j < 32; j += blockDim.y) {
    int r = blockIdx.y * 32 + j;
    if (r < rows && c < cols) tile[j][threadIdx.x] = in[(long long)r * cols + c];
  }
  __syncthreads();
  int r2 = blockIdx.y * 32 + threadIdx.x;
  for (int j = threadIdx.y; j < 32; j += blockDim.y) {
    int c2 = blockIdx.x * 32 + j;
    if (c2 < cols && r2 < rows) out[(long long)c2 * rows + r2] = tile[threadIdx.x][j];
  }
}
`,
};
