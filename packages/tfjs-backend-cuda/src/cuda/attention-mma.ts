import type { CudaSource } from '../kernel-library.js';
import { fp8Helpers } from './fp8.js';

/**
 * Packed varlen attention on tensor cores (FlashAttention-2 style, inline PTX mma.sync.m16n8k16, fp16 or bf16
 * inputs, fp32 accumulation and fp32 online softmax). Head size HD (compile-time) a multiple of 16, ≤ 128.
 * Block = 4 warps = 64 queries of one (segment, head); each warp owns 16 query rows. Keys of the segment are
 * walked in tiles of 64 in shared memory (K and V row-major, rows padded by 8 elements so fragment loads are
 * free of bank conflicts; V's fragments for P·V come transposed by ldmatrix.trans). S = Q·Kᵀ stays in
 * registers, is scaled, biased (ALiBi, with -DALIBI), masked past the segment's end, turned into probabilities and
 * reused directly as the A operand of P·V.
 * Work past the segment's end is skipped, not computed and masked: a warp whose 16 query rows all lie past it only
 * helps load the tiles, and the last key tile computes only its groups of 16 keys that reach into the segment (a
 * 101-token protein's second query block and second key tile are about half padding). The probabilities left out
 * would be exactly 0: every result keeps its bytes.
 * A tile's rows come global → shared by cp.async (all of its words in flight at once, none through registers; rows
 * past the segment's end zero-filled by the copy): DNABERT-S's attention 16–22 % faster than loads through registers
 * (H200, 2026-11-29), ESM-2's unchanged. With -DROTARY, q and k are then rotated in shared memory (rotate_half, the
 * cos / signed-sin tables at each row's position, its offset in the segment), each word by the thread that copied
 * it, with the same arithmetic as rotary_qkv_vec: ESM-2 reads qkv once instead of rotating it in a pass of its own
 * (which read and wrote q and k: ~3 % of a forward). Each thread copies a row's two head halves, so each word and
 * its partner are rotated together.
 * With -DFP8_OUT (fp8 with static scales) the output leaves as E4M3 bytes, out8 = e4m3(o · outScales[2]) with the
 * static scale of attentionFp8OutputScale, instead of T: the `out` GEMM's input, with no quantisation pass.
 */
export const attentionMmaSource: CudaSource = {
  name: 'attention_mma',
  code: fp8Helpers + String.raw`
#ifndef HD
#define HD 64
#endif
// Blocks an SM should hold (attention-min-blocks.ts); 1 leaves the registers to the compiler.
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1
#endif
#define BQ 64
#define BKT 64
#define QS (HD + 8)
typedef unsigned int u32;

// Word x (8 elements) rotated against its partner word y (the other half of its head) with the cos / signed-sin words
// of its columns at its row's position: the arithmetic of rotary_qkv_vec, so that both give the same bytes.
__device__ __forceinline__ uint4 rotate_word(uint4 x, uint4 y, uint4 cv, uint4 sv) {
  const T* xe = reinterpret_cast<const T*>(&x);
  const T* ye = reinterpret_cast<const T*>(&y);
  const T* ce = reinterpret_cast<const T*>(&cv);
  const T* se = reinterpret_cast<const T*>(&sv);
  uint4 o;
  T* oe = reinterpret_cast<T*>(&o);
  #pragma unroll
  for (int k = 0; k < 8; k++) oe[k] = fromF(toF(xe[k]) * toF(ce[k]) + toF(ye[k]) * toF(se[k]));
  return o;
}

// One 16-byte word global → shared without passing through registers (cp.async, cached in L2 only); with fill, the
// word is zeros instead (a row past the segment's end: nothing is read from src).
__device__ __forceinline__ void copy_word_async(T* dst, const T* src, bool fill) {
  unsigned addr;
  asm volatile("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }\n" : "=r"(addr) : "l"(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(addr), "l"(src), "r"(fill ? 0 : 16));
}

// Waits for this thread's cp.async copies: its own words are then in shared memory for itself (others' need a barrier).
__device__ __forceinline__ void copies_done() {
  asm volatile("cp.async.wait_all;\n" ::: "memory");
}

// Words c and c + HD/2 of a shared-memory row, rotated in place at position p (rotate_half with
// the arithmetic of rotary_qkv_vec, so that both give the same bytes).
__device__ __forceinline__ void rotate_pair_shared(T* row, int c, const T* cosT, const T* sinS, int p) {
  constexpr int half = HD / 2;
  const uint4 lo = *reinterpret_cast<const uint4*>(row + c);
  const uint4 hi = *reinterpret_cast<const uint4*>(row + c + half);
  const T* cr = cosT + (long long)p * HD;
  const T* sr = sinS + (long long)p * HD;
  *reinterpret_cast<uint4*>(row + c) = rotate_word(lo, hi, *reinterpret_cast<const uint4*>(cr + c), *reinterpret_cast<const uint4*>(sr + c));
  *reinterpret_cast<uint4*>(row + c + half) = rotate_word(hi, lo, *reinterpret_cast<const uint4*>(cr + c + half), *reinterpret_cast<const uint4*>(sr + c + half));
}

// Four 8×8 tiles of 16-bit elements from shared memory, transposed (lane i gives the address of row i % 8 of
// tile i / 8): the B operands of two m16n8k16 MMAs straight from a row-major V.
__device__ __forceinline__ void ldmatrix_x4_trans(u32* r, const T* p) {
  unsigned addr;
  asm volatile("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }\n" : "=r"(addr) : "l"(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

__device__ __forceinline__ u32 pack2(float lo, float hi) {
#if defined(VNP_BF16)
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
#else
  __half2 v = __floats2half2_rn(lo, hi);
#endif
  return *reinterpret_cast<u32*>(&v);
}

// 2^x by the SFU (what __expf(x) computes after multiplying x by log2(e)); -inf gives 0.
__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
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

// One key tile (keys k0 ..) for a warp's 16 query rows (qiA and qiA + 8: this thread's two of them): S = Q·Kᵀ, the online
// softmax, O += P·V, over the tile's first GROUPS groups of 16 keys (the rest lie past the segment's end: their
// probabilities would be exactly 0). A template, not a generic lambda: NVRTC compiles no host functions.
template <int GROUPS>
__device__ __forceinline__ void keyTile(const T* Ks, const T* Vs, const u32 (&qa)[HD / 16][4], float (&o)[HD / 8][4], float& mA, float& mB,
    float& lA, float& lB, int k0, int len, float scale, float slope, int qiA, int lane) {
  constexpr int NT = 2 * GROUPS;  // groups of 8 keys
  const int g = lane >> 2, tig = lane & 3;
  float s[NT][4];
  #pragma unroll
  for (int nt = 0; nt < NT; nt++) {
    s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.f;
    #pragma unroll
    for (int kk = 0; kk < HD / 16; kk++) {
      const T* kr = Ks + (nt * 8 + g) * QS + kk * 16 + tig * 2;
      mma16816(s[nt], qa[kk], *reinterpret_cast<const u32*>(kr), *reinterpret_cast<const u32*>(kr + 8));
    }
  }
  float tmA = -INFINITY, tmB = -INFINITY;
  #pragma unroll
  for (int nt = 0; nt < NT; nt++) {
    #pragma unroll
    for (int i = 0; i < 4; i++) {
      int key = k0 + nt * 8 + tig * 2 + (i & 1);
#if defined(ALIBI)
      // Scores in log2 units (scale and slope carry log2(e)): the exponent below is then one subtraction.
      int qi = i < 2 ? qiA : qiA + 8;
      float v = s[nt][i] * scale - slope * fabsf((float)(qi - key));
#else
      // Raw scores: scale (> 0, carrying log2(e)) keeps their order, and goes into the exponent's FMA below.
      float v = s[nt][i];
#endif
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
#if defined(ALIBI)
  const float cA = ex2(mA - nA), cB = ex2(mB - nB);
  const float eA = nA, eB = nB, f = 1.f;
#else
  const float cA = ex2((mA - nA) * scale), cB = ex2((mB - nB) * scale);
  const float eA = nA * scale, eB = nB * scale, f = scale;
#endif
  mA = nA; mB = nB;
  lA *= cA; lB *= cB;
  #pragma unroll
  for (int j = 0; j < HD / 8; j++) { o[j][0] *= cA; o[j][1] *= cA; o[j][2] *= cB; o[j][3] *= cB; }
  #pragma unroll
  for (int nt = 0; nt < NT; nt++) {
    s[nt][0] = ex2(fmaf(s[nt][0], f, -eA)); s[nt][1] = ex2(fmaf(s[nt][1], f, -eA));
    s[nt][2] = ex2(fmaf(s[nt][2], f, -eB)); s[nt][3] = ex2(fmaf(s[nt][3], f, -eB));
    lA += s[nt][0] + s[nt][1];
    lB += s[nt][2] + s[nt][3];
  }
  #pragma unroll
  for (int t = 0; t < NT / 2; t++) {
    u32 pa[4] = { pack2(s[2 * t][0], s[2 * t][1]), pack2(s[2 * t][2], s[2 * t][3]),
                  pack2(s[2 * t + 1][0], s[2 * t + 1][1]), pack2(s[2 * t + 1][2], s[2 * t + 1][3]) };
    #pragma unroll
    for (int j = 0; j < HD / 8; j += 2) {
      // Lanes 0–15: keys t·16 + 0..15 at columns j·8..; lanes 16–31: the same keys at columns (j+1)·8..
      u32 b[4];
      ldmatrix_x4_trans(b, Vs + (t * 16 + (lane & 15)) * QS + (j + (lane >> 4)) * 8);
      mma16816(o[j], pa, b[0], b[1]);
      mma16816(o[j + 1], pa, b[2], b[3]);
    }
  }
}

// Runs the statements for every pair of 16-byte words (c, c + HD/2) of a 64-row tile, spread over the block's 128
// threads: r is the row in the tile, c the first word's first column in the head.
#define TILE_PAIRS(...) for (int e = tid; e < 64 * (CH / 2); e += 128) { const int r = e / (CH / 2), c = (e % (CH / 2)) * 8; __VA_ARGS__ }

extern "C" __global__ void __launch_bounds__(128, MIN_BLOCKS) attention_mma(const T* __restrict__ qkv, const int* cu, const float* slopes, T* out, int H, float scale,
    const T* __restrict__ cosT, const T* __restrict__ sinS, unsigned char* out8, const float* outScales) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* Qs = reinterpret_cast<T*>(smem);            // [BQ][QS]; at the end, this warp's rows of the output
  T* Ks = Qs + BQ * QS;                           // [BKT][QS]
  T* Vs = Ks + BKT * QS;                          // [BKT][QS]
  const int seg = blockIdx.y, h = blockIdx.z;
  const int start = cu[seg], len = cu[seg + 1] - start;
  const int q0 = blockIdx.x * BQ;
  if (q0 >= len) return;
  const int d = H * HD;
  const long long width = 3LL * d;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, tig = lane & 3;
  // The softmax works in powers of 2: scores, slopes and maxima carry log2(e), so that each probability is one FMA and
  // one ex2 (was a multiply, a subtraction, __expf's multiply and ex2).
  constexpr float LOG2E = 1.4426950408889634f;
  scale *= LOG2E;
#if defined(ALIBI)
  const float slope = slopes[h] * LOG2E;
#else
  const float slope = 0.f;  // unused
#endif
  constexpr int CH = HD / 8;  // 16-byte chunks per row
  // Words c and c + HD/2 of head h of a row of the segment, in the part starting at column part (0 q, d k, 2d v), to
  // a row of a tile; q and k rotated when ROTARY is set, at the row's position: the packed layout's positions are
  // each row's offset in its segment (PackedLayout), so the kernel takes it from the row and loads no positions.
  // Zero past the segment's end.
  // The copies go global → shared by cp.async, all of a tile's in flight at once and none through registers (the
  // loads through registers waited in turn: 96 registers a thread hold few 16-byte words); then each thread rotates
  // the q and k words it copied itself, in place — its own copies are complete for it after copies_done().
  auto copy_pair = [&](T* dst, int row, int part, int c) {
    const bool past = row >= len;
    const T* head = qkv + (past ? 0 : (start + row) * width + part + h * HD);
    copy_word_async(dst + c, head + (past ? 0 : c), past);
    copy_word_async(dst + c + HD / 2, head + (past ? 0 : c + HD / 2), past);
  };
  auto rotate_pair = [&](T* dst, int row, int c) {
#if defined(ROTARY)
    if (row < len) rotate_pair_shared(dst, c, cosT, sinS, row);
#endif
  };

  // Q and the first key tile in one pass, so that all their loads are in flight together (a read-length
  // segment has just one tile: the block then reads global memory once).
  TILE_PAIRS({
    copy_pair(Qs + r * QS, q0 + r, 0, c);
    copy_pair(Ks + r * QS, r, d, c);
    copy_pair(Vs + r * QS, r, 2 * d, c);
  })
  copies_done();
  TILE_PAIRS({
    rotate_pair(Qs + r * QS, q0 + r, c);
    rotate_pair(Ks + r * QS, r, c);
  })
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
  const int qiA = q0 + r0;
  const bool warpLive = q0 + warp * 16 < len;  // else this warp's rows are all past the segment's end

  for (int k0 = 0; k0 < len; k0 += BKT) {
    if (k0 > 0) {
      __syncthreads();
      TILE_PAIRS({
        copy_pair(Ks + r * QS, k0 + r, d, c);
        copy_pair(Vs + r * QS, k0 + r, 2 * d, c);
      })
      copies_done();
      TILE_PAIRS(rotate_pair(Ks + r * QS, k0 + r, c);)
      __syncthreads();
    }
    if (!warpLive) continue;  // it still takes part in every tile's loads and barriers
    // The tile's keys before the segment's end, in groups of 16 (all 4 but in the last tile): one compiled body a
    // count, so that the groups past the end cost nothing and the arrays stay in registers.
    const int groups = min(BKT / 16, (len - k0 + 15) >> 4);
    if (groups == 4) keyTile<4>(Ks, Vs, qa, o, mA, mB, lA, lB, k0, len, scale, slope, qiA, lane);
    else if (groups == 3) keyTile<3>(Ks, Vs, qa, o, mA, mB, lA, lB, k0, len, scale, slope, qiA, lane);
    else if (groups == 2) keyTile<2>(Ks, Vs, qa, o, mA, mB, lA, lB, k0, len, scale, slope, qiA, lane);
    else keyTile<1>(Ks, Vs, qa, o, mA, mB, lA, lB, k0, len, scale, slope, qiA, lane);
  }
  if (!warpLive) return;  // no barrier below: the epilogue is each warp's own
  lA += __shfl_xor_sync(0xffffffff, lA, 1);
  lA += __shfl_xor_sync(0xffffffff, lA, 2);
  lB += __shfl_xor_sync(0xffffffff, lB, 1);
  lB += __shfl_xor_sync(0xffffffff, lB, 2);
  const float iA = 1.f / lA, iB = 1.f / lB;
#if defined(FP8_OUT)
  // As below, with one byte per value: each row of a head is HD contiguous bytes of out8.
  const float inv = outScales[2];
  unsigned char* stage8 = reinterpret_cast<unsigned char*>(Qs + warp * 16 * QS);
  constexpr int QSB = QS * 2;  // bytes per staged row (16-byte aligned: HD is a multiple of 16)
  #pragma unroll
  for (int j = 0; j < HD / 8; j++) {
    const unsigned short a = toE4M3Pair(o[j][0] * iA * inv, o[j][1] * iA * inv);
    const unsigned short b = toE4M3Pair(o[j][2] * iB * inv, o[j][3] * iB * inv);
    *reinterpret_cast<unsigned short*>(stage8 + g * QSB + j * 8 + tig * 2) = a;
    *reinterpret_cast<unsigned short*>(stage8 + (g + 8) * QSB + j * 8 + tig * 2) = b;
  }
  __syncwarp();
  constexpr int CH8 = HD / 16;  // 16-byte words per row of a head
  for (int e = lane; e < 16 * CH8; e += 32) {
    const int r = e / CH8, c = (e % CH8) * 16, qi = q0 + warp * 16 + r;
    if (qi < len) *reinterpret_cast<uint4*>(out8 + (long long)(start + qi) * d + h * HD + c) = *reinterpret_cast<const uint4*>(stage8 + r * QSB + c);
  }
#else
  // The warp's 16 output rows go through its own rows of Qs (no other warp reads them any more) and leave as
  // whole 16-byte words: each row of a head is 2·HD contiguous bytes of the output.
  T* stage = Qs + warp * 16 * QS;
  #pragma unroll
  for (int j = 0; j < HD / 8; j++) {
    *reinterpret_cast<u32*>(stage + g * QS + j * 8 + tig * 2) = pack2(o[j][0] * iA, o[j][1] * iA);
    *reinterpret_cast<u32*>(stage + (g + 8) * QS + j * 8 + tig * 2) = pack2(o[j][2] * iB, o[j][3] * iB);
  }
  __syncwarp();
  for (int e = lane; e < 16 * CH; e += 32) {
    const int r = e / CH, c = (e % CH) * 8, qi = q0 + warp * 16 + r;
    if (qi < len) *reinterpret_cast<uint4*>(out + (long long)(start + qi) * d + h * HD + c) = *reinterpret_cast<const uint4*>(stage + r * QS + c);
  }
#endif
}
`,
};

/** Dynamic shared memory of attention_mma for head size hd (2-byte storage): Q, K and V tiles of 64 rows. */
export function attentionMmaSharedBytes(hd: number): number {
  return 3 * 64 * (hd + 8) * 2;
}
