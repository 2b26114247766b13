// Prepended to every CUDA source: the storage type T of float tensors (chosen by -DVNP_F16 / -DVNP_BF16 /
// -DVNP_F32) with its conversions to and from the fp32 that all arithmetic uses, and the erf GELU.
export const prelude = String.raw`
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#if defined(VNP_F16)
typedef __half T;
__device__ __forceinline__ float toF(T v) { return __half2float(v); }
__device__ __forceinline__ T fromF(float v) { return __float2half_rn(v); }
#elif defined(VNP_BF16)
typedef __nv_bfloat16 T;
__device__ __forceinline__ float toF(T v) { return __bfloat162float(v); }
__device__ __forceinline__ T fromF(float v) { return __float2bfloat16_rn(v); }
#else
typedef float T;
__device__ __forceinline__ float toF(T v) { return v; }
__device__ __forceinline__ T fromF(float v) { return v; }
#endif
// Elements of T per 16-byte vector access (uint4): the vectorised kernels move whole 16-byte words.
constexpr int VEC = 16 / sizeof(T);
// NVRTC has no <math.h> macros.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
__device__ __forceinline__ float geluErf(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }
`;
