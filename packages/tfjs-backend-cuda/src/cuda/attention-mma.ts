import type { CudaSource } from '../kernel-library.js';

/**
 * Packed varlen attention on tensor cores (FlashAttention-2 style, inline PTX mma.sync.m16n8k16, fp16 or bf16
 * inputs, fp32 accumulation and fp32 online softmax). Head size HD (compile-time) a multiple of 16, ≤ 128.
 * Block = 4 warps = 64 queries of one (segment, head); each warp owns 16 query rows. Keys of the segment are
 * walked in tiles of 64 in shared memory (K row-major, V transposed, rows padded by 8 elements so fragment
 * loads are free of bank conflicts). S = Q·Kᵀ stays in registers, is scaled, biased (ALiBi), masked past the
 * segment's end, turned into probabilities and reused directly as the A operand of P·V.
 */
export const attentionMmaSource: CudaSource = {
  name: 'attention_mma',
  code: String.raw`
#ifndef HD
#define HD 64
#endif
#define BQ 64
#define BKT 64
#define QS (HD + 8)
#define VS (BKT + 8)
typedef unsigned int u32;

__device__ __forceinline__ u32 pack2(float lo, float hi) {
#if defined(VNP_BF16)
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
#else
  __half2 v = __floats2half2_rn(lo, hi);
#endif
  return *reinterpret_cast<u32*>(&v);
}

__device__ __forceinline__ void mma16816(float* c, const u32* a, u32 b0, u32 b1) {
#if defined(VNP_BF16)
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
#else
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
#endif
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

extern "C" __global__ void __launch_bounds__(128) attention_mma(const T* qkv, const int* cu, const float* slopes, T* out, int H, float scale, int useAlibi) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* Qs = reinterpret_cast<T*>(smem);            // [BQ][QS]
  T* Ks = Qs + BQ * QS;                           // [BKT][QS]
  T* Vt = Ks + BKT * QS;                          // [HD][VS]
  const int seg = blockIdx.y, h = blockIdx.z;
  const int start = cu[seg], len = cu[seg + 1] - start;
  const int q0 = blockIdx.x * BQ;
  if (q0 >= len) return;
  const int d = H * HD;
  const long long width = 3LL * d;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, tig = lane & 3;
  const float slope = useAlibi ? slopes[h] : 0.f;
  const uint4 zero = make_uint4(0, 0, 0, 0);
  constexpr int CH = HD / 8;  // 16-byte chunks per row

  for (int e = tid; e < BQ * CH; e += 128) {
    int r = e / CH, c = (e % CH) * 8;
    uint4 v = zero;
    if (q0 + r < len) v = *reinterpret_cast<const uint4*>(qkv + (start + q0 + r) * width + h * HD + c);
    *reinterpret_cast<uint4*>(Qs + r * QS + c) = v;
  }
  __syncthreads();
  u32 qa[HD / 16][4];
  const int r0 = warp * 16 + g;
  #pragma unroll
  for (int kk = 0; kk < HD / 16; kk++) {
    qa[kk][0] = *reinterpret_cast<const u32*>(Qs + r0 * QS + kk * 16 + tig * 2);
    qa[kk][1] = *reinterpret_cast<const u32*>(Qs + (r0 + 8) * QS + kk * 16 + tig * 2);
    qa[kk][2] = *reinterpret_cast<const u32*>(Qs + r0 * QS + kk * 16 + tig * 2 + 8);
    qa[kk][3] = *reinterpret_cast<const u32*>(Qs + (r0 + 8) * QS + kk * 16 + tig * 2 + 8);
  }
  float o[HD / 8][4];
  #pragma unroll
  for (int j = 0; j < HD / 8; j++) o[j][0] = o[j][1] = o[j][2] = o[j][3] = 0.f;
  float mA = -INFINITY, mB = -INFINITY, lA = 0.f, lB = 0.f;  // rows r0 and r0 + 8
  const int qiA = q0 + r0, qiB = qiA + 8;

  for (int k0 = 0; k0 < len; k0 += BKT) {
    __syncthreads();
    for (int e = tid; e < BKT * CH; e += 128) {
      int r = e / CH, c = (e % CH) * 8;
      uint4 kv = zero, vv = zero;
      if (k0 + r < len) {
        const T* row = qkv + (start + k0 + r) * width + h * HD + c;
        kv = *reinterpret_cast<const uint4*>(row + d);
        vv = *reinterpret_cast<const uint4*>(row + 2 * d);
      }
      *reinterpret_cast<uint4*>(Ks + r * QS + c) = kv;
      const T* vals = reinterpret_cast<const T*>(&vv);
      #pragma unroll
      for (int i = 0; i < 8; i++) Vt[(c + i) * VS + r] = vals[i];
    }
    __syncthreads();

    float s[BKT / 8][4];
    #pragma unroll
    for (int nt = 0; nt < BKT / 8; nt++) {
      s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.f;
      #pragma unroll
      for (int kk = 0; kk < HD / 16; kk++) {
        const T* kr = Ks + (nt * 8 + g) * QS + kk * 16 + tig * 2;
        mma16816(s[nt], qa[kk], *reinterpret_cast<const u32*>(kr), *reinterpret_cast<const u32*>(kr + 8));
      }
    }
    float tmA = -INFINITY, tmB = -INFINITY;
    #pragma unroll
    for (int nt = 0; nt < BKT / 8; nt++) {
      #pragma unroll
      for (int i = 0; i < 4; i++) {
        int key = k0 + nt * 8 + tig * 2 + (i & 1);
        int qi = i < 2 ? qiA : qiB;
        float v = s[nt][i] * scale - slope * fabsf((float)(qi - key));
        v = key < len ? v : -INFINITY;
        s[nt][i] = v;
        if (i < 2) tmA = fmaxf(tmA, v); else tmB = fmaxf(tmB, v);
      }
    }
    tmA = fmaxf(tmA, __shfl_xor_sync(0xffffffff, tmA, 1));
    tmA = fmaxf(tmA, __shfl_xor_sync(0xffffffff, tmA, 2));
    tmB = fmaxf(tmB, __shfl_xor_sync(0xffffffff, tmB, 1));
    tmB = fmaxf(tmB, __shfl_xor_sync(0xffffffff, tmB, 2));
    const float nA = fmaxf(mA, tmA), nB = fmaxf(mB, tmB);
    const float cA = __expf(mA - nA), cB = __expf(mB - nB);
    mA = nA; mB = nB;
    lA *= cA; lB *= cB;
    #pragma unroll
    for (int j = 0; j < HD / 8; j++) { o[j][0] *= cA; o[j][1] *= cA; o[j][2] *= cB; o[j][3] *= cB; }
    #pragma unroll
    for (int nt = 0; nt < BKT / 8; nt++) {
      s[nt][0] = __expf(s[nt][0] - nA); s[nt][1] = __expf(s[nt][1] - nA);
      s[nt][2] = __expf(s[nt][2] - nB); s[nt][3] = __expf(s[nt][3] - nB);
      lA += s[nt][0] + s[nt][1];
      lB += s[nt][2] + s[nt][3];
    }
    #pragma unroll
    for (int t = 0; t < BKT / 16; t++) {
      u32 pa[4] = { pack2(s[2 * t][0], s[2 * t][1]), pack2(s[2 * t][2], s[2 * t][3]),
                    pack2(s[2 * t + 1][0], s[2 * t + 1][1]), pack2(s[2 * t + 1][2], s[2 * t + 1][3]) };
      #pragma unroll
      for (int j = 0; j < HD / 8; j++) {
        const T* vr = Vt + (j * 8 + g) * VS + t * 16 + tig * 2;
        mma16816(o[j], pa, *reinterpret_cast<const u32*>(vr), *reinterpret_cast<const u32*>(vr + 8));
      }
    }
  }
  lA += __shfl_xor_sync(0xffffffff, lA, 1);
  lA += __shfl_xor_sync(0xffffffff, lA, 2);
  lB += __shfl_xor_sync(0xffffffff, lB, 1);
  lB += __shfl_xor_sync(0xffffffff, lB, 2);
  const float iA = 1.f / lA, iB = 1.f / lB;
  #pragma unroll
  for (int j = 0; j < HD / 8; j++) {
    int c = h * HD + j * 8 + tig * 2;
    if (qiA < len) *reinterpret_cast<u32*>(out + (long long)(start + qiA) * d + c) = pack2(o[j][0] * iA, o[j][1] * iA);
    if (qiB < len) *reinterpret_cast<u32*>(out + (long long)(start + qiB) * d + c) = pack2(o[j][2] * iB, o[j][3] * iB);
  }
}
`,
};

/** Dynamic shared memory of attention_mma for head size hd (2-byte storage). */
export function attentionMmaSharedBytes(hd: number): number {
  return (64 * (hd + 8) * 2 + hd * (64 + 8)) * 2;
}
