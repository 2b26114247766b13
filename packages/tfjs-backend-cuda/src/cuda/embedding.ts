import type { CudaSource } from '../kernel-library.js';

/** out[n] = table[ids[n]] · (rowScale ? rowScale[n] : scale): the embedding gather with ESM-2's token-dropout scale. */
export const embeddingSource: CudaSource = {
  name: 'embedding',
  code: String.raw`
extern "C" __global__ void embedding(const int* ids, const T* table, const T* rowScale, T* out, int rows, int d, float scale, int useRowScale) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= (long long)rows * d) return;
  long long n = i / d;
  int c = (int)(i % d);
  float s = useRowScale ? toF(rowScale[n]) : scale;
  out[i] = fromF(toF(table[(long long)ids[n] * d + c]) * s);
}
`,
};
