import type { CudaSource } from '../kernel-library.js';

/** fp32 ↔ storage type T (uploads of float32 data, reads back to float32), and 16-bit weights → T. */
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
// fp16 / bf16 bit patterns (a checkpoint's bytes) → T: exact for T = the same format or f32.
extern "C" __global__ void f16bits_to_t(const unsigned short* in, T* out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = fromF(__half2float(__ushort_as_half(in[i])));
}
extern "C" __global__ void bf16bits_to_t(const unsigned short* in, T* out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = fromF(__bfloat162float(__ushort_as_bfloat16(in[i])));
}
`,
};
