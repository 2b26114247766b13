import type { CudaSource } from '../kernel-library.js';

/**
 * LayerNorm, one block per row: the row is held in shared memory as fp32, mean and then the biased
 * variance of the centred values are block reductions in fp32 (two passes, as torch's reference numerics).
 */
export const layerNormSource: CudaSource = {
  name: 'layer_norm',
  code: String.raw`
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
`,
};
