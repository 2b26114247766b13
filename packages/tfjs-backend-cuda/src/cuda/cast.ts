import type { CudaSource } from '../kernel-library.js';

/** fp32 ↔ storage type T: uploads of float32 data and reads back to float32. */
export const castSource: CudaSource = {
  name: 'cast',
  code: String.raw`
extern "C" __global__ void f32_to_t(const float* in, T* out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = fromF(in[i]);
}
extern "C" __global__ void t_to_f32(const T* in, float* out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = toF(in[i]);
}
`,
};
