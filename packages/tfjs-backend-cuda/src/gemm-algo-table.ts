// cuBLASLt configurations measured to beat the heuristic's first choice on our models' GEMMs, pinned per weight
// shape like the heuristic's (split-K off, so a row's sums never depend on its batch). The heuristic ranks
// configurations by a model of the GPU, not by a run: on DNABERT-S's narrow GEMMs its first choice is 11–15 %
// slower than the best configuration cuBLASLt accepts, on ESM-2 3B's 2–6 % (bf16).
//
// Provenance: tools/bench/gemm/tune-cublaslt.cu on an H100 80GB HBM3 (sm_90, 132 SMs, cuBLASLt 13.0), 2026-11-26;
// every configuration of the heuristic's algorithm ids timed at 16,384 rows, the best nine again at 16,384 and 32,768
// rows; raw results in docs/benchmarks/data/cublaslt-tuning-*-h100-2026-11-26.jsonl. Kept only where the winner was
// ≥ 1 % faster per row than the heuristic's first choice AND the models were faster with it (docs/benchmarks/cuda.md:
// ESM-2 3B bf16 1.02–1.06×, DNABERT-S bf16 1.05–1.16×). fp8 with per-row scales has none: its winners (1.03–1.07×
// alone) gave ESM-2 3B 0.99–1.03× and DNABERT-S 0.92–1.01× in the models, so the heuristic's choice stays. fp8 with
// per-tensor scales (static scales: qkv, fc1 writing E4M3, DNABERT-S's gated; `tune-cublaslt fp8-tensor`, cuBLASLt
// 13.1, 2026-11-26) won 1.08–1.20× alone, the model A/B in docs/benchmarks/cuda.md. A configuration is valid on any
// sm_90 GPU (cuBLASLt checks it at every probe row count before it is pinned; if it refuses, the heuristic's choice
// is pinned instead).
import type { StorageType } from './precision.js';

/** A cuBLASLt algorithm configuration (cublasLtMatmulAlgoConfigAttributes_t; split-K is always off). */
export interface GemmAlgoConfig {
  id: number;
  tile: number;
  stages: number;
  swizzle: number;
  custom: number;
  innerShape: number;
  cluster: number;
}

/** A GEMM as the backend plans it: `fp8` = FP8 inputs, fast accumulation, bf16 output, outer-vector scales or, with
 * `scales: 'tensor'`, per-tensor scales (and with `fp8Out`, E4M3 output). */
export interface TunedGemmKey {
  arch: string;
  storage: StorageType | 'fp8';
  inner: number;
  cols: number;
  bias: boolean;
  gelu: boolean;
  scales?: 'tensor';
  fp8Out?: boolean;
}

interface TunedGemm extends Omit<TunedGemmKey, 'arch'> {
  config: GemmAlgoConfig;
}

const SM90: readonly TunedGemm[] = [
  // bf16 (per-row time against the heuristic's first choice, 16,384 and 32,768 rows)
  { storage: 'bf16', inner: 2560, cols: 7680, bias: true, gelu: false, config: { id: 66, tile: 408, stages: 35, swizzle: 0, custom: 1, innerShape: 0, cluster: 3 } }, // ESM-2 3B qkv: 1.063×
  { storage: 'bf16', inner: 2560, cols: 2560, bias: true, gelu: false, config: { id: 66, tile: 408, stages: 35, swizzle: 0, custom: 1, innerShape: 0, cluster: 3 } }, // ESM-2 3B out: 1.040×
  { storage: 'bf16', inner: 2560, cols: 10240, bias: true, gelu: true, config: { id: 66, tile: 408, stages: 35, swizzle: 0, custom: 1, innerShape: 0, cluster: 3 } }, // ESM-2 3B fc1 + GELU: 1.022×
  { storage: 'bf16', inner: 768, cols: 2304, bias: true, gelu: false, config: { id: 66, tile: 407, stages: 35, swizzle: 0, custom: 1, innerShape: 0, cluster: 3 } }, // DNABERT-S qkv: 1.149×
  { storage: 'bf16', inner: 768, cols: 768, bias: true, gelu: false, config: { id: 66, tile: 407, stages: 35, swizzle: 0, custom: 1, innerShape: 0, cluster: 3 } }, // DNABERT-S out: 1.113×
  { storage: 'bf16', inner: 768, cols: 6144, bias: false, gelu: false, config: { id: 66, tile: 409, stages: 35, swizzle: 0, custom: 1, innerShape: 0, cluster: 3 } }, // DNABERT-S gated: 1.138×
  // fp8, per-tensor scales (against the heuristic's first choice alone, 16,384 and 32,768 rows)
  { storage: 'fp8', scales: 'tensor', inner: 2560, cols: 7680, bias: true, gelu: false, config: { id: 66, tile: 408, stages: 36, swizzle: 0, custom: 1, innerShape: 0, cluster: 3 } }, // ESM-2 3B qkv: 1.083×
  { storage: 'fp8', scales: 'tensor', fp8Out: true, inner: 2560, cols: 10240, bias: true, gelu: true, config: { id: 66, tile: 408, stages: 36, swizzle: 0, custom: 1, innerShape: 0, cluster: 3 } }, // ESM-2 3B fc1 + GELU → E4M3: 1.131×
  { storage: 'fp8', scales: 'tensor', inner: 768, cols: 2304, bias: true, gelu: false, config: { id: 66, tile: 29, stages: 36, swizzle: 0, custom: 1, innerShape: 0, cluster: 3 } }, // DNABERT-S qkv: 1.201×
  { storage: 'fp8', scales: 'tensor', inner: 768, cols: 6144, bias: false, gelu: false, config: { id: 66, tile: 201, stages: 36, swizzle: 0, custom: 0, innerShape: 0, cluster: 5 } }, // DNABERT-S gated: 1.162×
];

const TABLES: Readonly<Record<string, readonly TunedGemm[]>> = { sm_90: SM90 };

/** The GEMMs that have a measured configuration on this GPU architecture (the GPU suite checks each). */
export function tunedGemmKeys(arch: string): TunedGemmKey[] {
  return (TABLES[arch] ?? []).map(({ config: _config, ...key }) => ({ arch, ...key }));
}

/** The measured configuration for this GEMM on this GPU architecture, if there is one. */
export function tunedGemmConfig(key: TunedGemmKey): GemmAlgoConfig | undefined {
  return TABLES[key.arch]?.find((t) => t.storage === key.storage && t.inner === key.inner && t.cols === key.cols && t.bias === key.bias && t.gelu === key.gelu
    && t.scales === key.scales && (t.fp8Out ?? false) === (key.fp8Out ?? false))?.config;
}
