// Which FP8 scale modes and output types cuBLASLt takes on this GPU for our GEMMs, and how fast each runs: the
// question behind static (per-tensor, weight-derived) activation scales and fc1 writing fc2's E4M3 input directly.
//
// For each GEMM of ESM-2 3B and DNABERT-S as the backend calls it in fp8 (TN, fast accumulation, bias epilogue, GELU
// on fc1, residual by beta = 1), and each variant:
//   scales  vec/vec       per-channel weight × per-row activation (outer-vector; the backend's mode today)
//           tensor/tensor one scalar each
//           vec/tensor    per-channel weight × one activation scalar
//   output  bf16, or E4M3 with a scalar D scale (shapes without a residual)
// prints one JSON line: whether the heuristic has an algorithm (split-K off, accepted from 1 to 32,768 rows), the
// heuristic's first and the fastest of its first eight at 32,768 rows (TFLOP/s, min of 3 passes of 10 calls), and for
// E4M3 output the relative RMS of dequantised D against the same GEMM's bf16 output (the D scale's meaning checked).
//
//   nvcc -O2 -std=c++17 -o /tmp/fp8-scale-modes tools/bench/gemm/fp8-scale-modes.cu -lcublasLt && /tmp/fp8-scale-modes
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

struct Shape { const char *name; int inner, cols; bool gelu, residual; };
static const Shape SHAPES[] = {
  {"esm2-3B.qkv", 2560, 7680, false, false},
  {"esm2-3B.out", 2560, 2560, false, true},
  {"esm2-3B.fc1", 2560, 10240, true, false},
  {"esm2-3B.fc2", 10240, 2560, false, true},
  {"dnabert-s.qkv", 768, 2304, false, false},
  {"dnabert-s.wo", 3072, 768, false, true},
};
static const size_t WORKSPACE = 64u << 20;
static const int ROWS = 32768;
static const int PROBE_ROWS[] = {1, 7, 64, 333, 4099, 16384, 32768};

// Values as the backend's operands look: E4M3 bytes spread over the format's range, positive scales near 1.
__global__ void fillRandom(unsigned char *p, size_t n, float scale, int kind, uint32_t seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = (uint32_t(i) + seed) * 2654435761u ^ uint32_t(i >> 32) * 40503u;
    h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
    const float v = (float(h & 0xffffff) / float(0x800000) - 1.0f) * scale;
    if (kind == 0) reinterpret_cast<__nv_bfloat16 *>(p)[i] = __float2bfloat16(v);
    else if (kind == 2) reinterpret_cast<__nv_fp8_e4m3 *>(p)[i] = __nv_fp8_e4m3(v);
    else reinterpret_cast<float *>(p)[i] = 0.75f + 0.25f * fabsf(v);
  }
}

// Relative RMS of (fp8 · 1/dScale) against bf16, over n values.
__global__ void compare(const __nv_fp8_e4m3 *q, const __nv_bfloat16 *ref, size_t n, float dScale, double *sums) {
  double err = 0, sig = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const double r = __bfloat162float(ref[i]), v = float(q[i]) / dScale;
    err += (v - r) * (v - r);
    sig += r * r;
  }
  atomicAdd(&sums[0], err);
  atomicAdd(&sums[1], sig);
}

struct Variant { const char *scales; bool wVec, xVec, fp8Out; };
static const Variant VARIANTS[] = {
  {"vec/vec", true, true, false},
  {"tensor/tensor", false, false, false},
  {"vec/tensor", true, false, false},
  {"vec/vec", true, true, true},
  {"tensor/tensor", false, false, true},
  {"vec/tensor", true, false, true},
};

int main() {
  cublasLtHandle_t handle;
  if (cublasLtCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  const size_t maxInner = 10240, maxCols = 10240;
  void *x, *w, *y, *y8, *bias, *workspace, *xScales, *wScales, *one, *dScale;
  double *sums;
  CHECK_CUDA(cudaMalloc(&workspace, WORKSPACE));
  CHECK_CUDA(cudaMalloc(&x, size_t(ROWS) * maxInner));
  CHECK_CUDA(cudaMalloc(&w, maxInner * maxCols));
  CHECK_CUDA(cudaMalloc(&y, size_t(ROWS) * maxCols * 2));
  CHECK_CUDA(cudaMalloc(&y8, size_t(ROWS) * maxCols));
  CHECK_CUDA(cudaMalloc(&bias, maxCols * 2));
  CHECK_CUDA(cudaMalloc(&xScales, ROWS * 4));
  CHECK_CUDA(cudaMalloc(&wScales, maxCols * 4));
  CHECK_CUDA(cudaMalloc(&one, 4));
  CHECK_CUDA(cudaMalloc(&dScale, 4));
  CHECK_CUDA(cudaMalloc(&sums, 16));
  // Operands near E4M3's top (as the backend's row scaling puts them); a scale that maps the products back to ~1.
  fillRandom<<<1024, 256>>>(static_cast<unsigned char *>(x), size_t(ROWS) * maxInner, 200.f, 2, 1);
  fillRandom<<<1024, 256>>>(static_cast<unsigned char *>(w), maxInner * maxCols, 200.f, 2, 2);
  fillRandom<<<64, 256>>>(static_cast<unsigned char *>(bias), maxCols, 0.02f, 0, 3);
  fillRandom<<<64, 256>>>(static_cast<unsigned char *>(xScales), ROWS, 1.f, 3, 4);
  fillRandom<<<64, 256>>>(static_cast<unsigned char *>(wScales), maxCols, 1.f, 3, 5);
  const float oneHost = 1.f;
  CHECK_CUDA(cudaMemcpy(one, &oneHost, 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(y, 0, size_t(ROWS) * maxCols * 2));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  const float betaZero = 0, betaOne = 1;
  const cudaDataType_t e4m3 = CUDA_R_8F_E4M3, bf16 = CUDA_R_16BF;

  for (const Shape &s : SHAPES) {
    // Products of two ~[-200, 200] values summed over K, scaled back to ~unit size: alpha folded into the scales.
    const float unit = 1.f / (200.f * 200.f * std::sqrt(float(s.inner)) / 3.f);
    for (const Variant &v : VARIANTS) {
      if (v.fp8Out && s.residual) continue;
      cublasLtMatmulDesc_t desc;
      cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
      cublasOperation_t opA = CUBLAS_OP_T, opB = CUBLAS_OP_N;
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof opA);
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof opB);
      cublasLtEpilogue_t epilogue = s.gelu ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue);
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bf16, sizeof bf16);
      int8_t fast = 1;
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast);
      cublasLtMatmulMatrixScale_t vec = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F, scalar = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, v.wVec ? &vec : &scalar, sizeof vec);
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, v.xVec ? &vec : &scalar, sizeof vec);
      void *aScale = v.wVec ? wScales : one, *bScale = v.xVec ? xScales : one;
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &aScale, sizeof aScale);
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &bScale, sizeof bScale);
      // D = dScale · epilogue(alpha · scales · Σ): 64 maps the ~unit GELU outputs well inside E4M3's range.
      const float dScaleHost = 64.f;
      CHECK_CUDA(cudaMemcpy(dScale, &dScaleHost, 4, cudaMemcpyHostToDevice));
      if (v.fp8Out) cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &dScale, sizeof dScale);
      cublasLtMatrixLayout_t a, layouts[8][3];
      cublasLtMatrixLayoutCreate(&a, e4m3, s.inner, s.cols, s.inner);
      int probeCount = 0;
      for (int rows : PROBE_ROWS) {
        cublasLtMatrixLayoutCreate(&layouts[probeCount][0], e4m3, s.inner, rows, s.inner);
        cublasLtMatrixLayoutCreate(&layouts[probeCount][1], bf16, s.cols, rows, s.cols);
        cublasLtMatrixLayoutCreate(&layouts[probeCount][2], v.fp8Out ? e4m3 : bf16, s.cols, rows, s.cols);
        probeCount++;
      }
      auto &at = layouts[probeCount - 1];
      cublasLtMatmulPreference_t pref;
      cublasLtMatmulPreferenceCreate(&pref);
      size_t ws = WORKSPACE;
      cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
      cublasLtMatmulHeuristicResult_t results[8];
      int returned = 0;
      const cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(handle, desc, a, at[0], at[1], at[2], pref, 8, results, &returned);
      std::vector<cublasLtMatmulAlgo_t> algos;
      for (int i = 0; hs == CUBLAS_STATUS_SUCCESS && i < returned; i++) {
        if (results[i].state != CUBLAS_STATUS_SUCCESS) continue;
        cublasLtMatmulAlgo_t algo = results[i].algo;
        uint32_t oneSplit = 1, none = CUBLASLT_REDUCTION_SCHEME_NONE;
        cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &oneSplit, sizeof oneSplit);
        cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &none, sizeof none);
        bool everywhere = true;
        for (int p = 0; p < probeCount && everywhere; p++) {
          cublasLtMatmulHeuristicResult_t check;
          everywhere = cublasLtMatmulAlgoCheck(handle, desc, a, layouts[p][0], layouts[p][1], layouts[p][2], &algo, &check) == CUBLAS_STATUS_SUCCESS && check.workspaceSize <= WORKSPACE;
        }
        if (everywhere) algos.push_back(algo);
      }
      const float a1 = unit;
      void *d = v.fp8Out ? y8 : y;
      auto launch = [&](cublasLtMatmulAlgo_t &algo) {
        return cublasLtMatmul(handle, desc, &a1, w, a, x, at[0], s.residual ? &betaOne : &betaZero, y, at[1], d, at[2], &algo, workspace, WORKSPACE, stream);
      };
      std::vector<double> best(algos.size(), 1e30);
      std::vector<bool> ran(algos.size(), false);
      for (int pass = 0; pass < 3; pass++)
        for (size_t i = 0; i < algos.size(); i++) {
          if (launch(algos[i]) != CUBLAS_STATUS_SUCCESS) continue;
          ran[i] = true;
          CHECK_CUDA(cudaEventRecord(start, stream));
          for (int r = 0; r < 10; r++) launch(algos[i]);
          CHECK_CUDA(cudaEventRecord(stop, stream));
          CHECK_CUDA(cudaEventSynchronize(stop));
          float ms;
          CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
          best[i] = std::min(best[i], double(ms) / 10);
        }
      auto tflops = [&](double ms) { return 2.0 * ROWS * s.inner * s.cols / (ms * 1e-3) / 1e12; };
      int fastest = -1;
      for (size_t i = 0; i < algos.size(); i++) if (ran[i] && (fastest < 0 || best[i] < best[fastest])) fastest = int(i);
      double relRms = -1;
      if (v.fp8Out && fastest >= 0) {
        // The same GEMM to bf16 (no D scale) as the reference: D must be dScale × it, within E4M3's rounding.
        cublasLtMatmulDesc_t ref;
        cublasLtMatmulDescCreate(&ref, CUBLAS_COMPUTE_32F, CUDA_R_32F);
        cublasLtMatmulDescSetAttribute(ref, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof opA);
        cublasLtMatmulDescSetAttribute(ref, CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof opB);
        cublasLtMatmulDescSetAttribute(ref, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue);
        cublasLtMatmulDescSetAttribute(ref, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
        cublasLtMatmulDescSetAttribute(ref, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bf16, sizeof bf16);
        cublasLtMatmulDescSetAttribute(ref, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast);
        cublasLtMatmulDescSetAttribute(ref, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, v.wVec ? &vec : &scalar, sizeof vec);
        cublasLtMatmulDescSetAttribute(ref, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, v.xVec ? &vec : &scalar, sizeof vec);
        cublasLtMatmulDescSetAttribute(ref, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &aScale, sizeof aScale);
        cublasLtMatmulDescSetAttribute(ref, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &bScale, sizeof bScale);
        cublasLtMatrixLayout_t dRef;
        cublasLtMatrixLayoutCreate(&dRef, bf16, s.cols, ROWS, s.cols);
        cublasLtMatmulHeuristicResult_t r;
        int n = 0;
        if (cublasLtMatmulAlgoGetHeuristic(handle, ref, a, at[0], dRef, dRef, pref, 1, &r, &n) == CUBLAS_STATUS_SUCCESS && n > 0
            && cublasLtMatmul(handle, ref, &a1, w, a, x, at[0], &betaZero, y, dRef, y, dRef, &r.algo, workspace, WORKSPACE, stream) == CUBLAS_STATUS_SUCCESS
            && launch(algos[fastest]) == CUBLAS_STATUS_SUCCESS) {
          CHECK_CUDA(cudaMemsetAsync(sums, 0, 16, stream));
          compare<<<512, 256, 0, stream>>>(static_cast<const __nv_fp8_e4m3 *>(y8), static_cast<const __nv_bfloat16 *>(y), size_t(ROWS) * s.cols, dScaleHost, sums);
          double h[2];
          CHECK_CUDA(cudaMemcpyAsync(h, sums, 16, cudaMemcpyDeviceToHost, stream));
          CHECK_CUDA(cudaStreamSynchronize(stream));
          relRms = std::sqrt(h[0] / h[1]);
        }
        cublasLtMatrixLayoutDestroy(dRef);
        cublasLtMatmulDescDestroy(ref);
      }
      printf("{\"shape\":\"%s\",\"inner\":%d,\"cols\":%d,\"gelu\":%s,\"residual\":%s,\"scales\":\"%s\",\"out\":\"%s\",\"heuristic\":%d,\"algorithms\":%zu,"
             "\"firstTflops\":%.1f,\"bestTflops\":%.1f,\"relRmsVsBf16Out\":%.4f}\n",
             s.name, s.inner, s.cols, s.gelu ? "true" : "false", s.residual ? "true" : "false", v.scales, v.fp8Out ? "e4m3" : "bf16", int(hs), algos.size(),
             !algos.empty() && ran[0] ? tflops(best[0]) : 0.0, fastest >= 0 ? tflops(best[fastest]) : 0.0, relRms);
      fflush(stdout);
      cublasLtMatmulPreferenceDestroy(pref);
      for (int p = 0; p < probeCount; p++) for (auto &l : layouts[p]) cublasLtMatrixLayoutDestroy(l);
      cublasLtMatrixLayoutDestroy(a);
      cublasLtMatmulDescDestroy(desc);
    }
  }
  return 0;
}
