// cuBLASLt through koffi: row-major GEMMs Y = X·W (+ bias) (+ residual) with fp32 accumulation.
// One plan (descriptors + the algorithm cuBLASLt's heuristic ranks first) per shape, made once and cached.
import type { DevicePtr, Handle } from './cuda-driver.js';
import { bindLibrary, type NativeFunction } from './koffi.js';
import type { StorageType } from './precision.js';

// Enum values from cublasLt.h / cublas_api.h / library_types.h.
const CUDA_R = { f32: 0, f16: 2, bf16: 14 } as const;
const CUDA_R_8F_E4M3 = 28;
const COMPUTE_32F = 68;
const DESC_TRANSA = 3;
const DESC_TRANSB = 4;
const DESC_EPILOGUE = 7;
const DESC_BIAS_POINTER = 8;
const DESC_A_SCALE_POINTER = 17;
const DESC_B_SCALE_POINTER = 18;
const DESC_FAST_ACCUM = 25;
const DESC_BIAS_DATA_TYPE = 26;
const DESC_A_SCALE_MODE = 31;
const DESC_B_SCALE_MODE = 32;
const SCALE_OUTER_VEC_32F = 3;
const OP_T = 1;
const EPILOGUE_DEFAULT = 1;
const EPILOGUE_BIAS = 4;
const PREF_MAX_WORKSPACE_BYTES = 1;
const OP_N = 0;
const HEURISTIC_RESULT_BYTES = 96; // cublasLtMatmulHeuristicResult_t: algo[64] workspaceSize state wavesCount reserved[4]

export interface GemmShape {
  /** Rows of X and Y (tokens). */
  rows: number;
  /** Columns of X = rows of W. */
  inner: number;
  /** Columns of W and Y. */
  cols: number;
  bias: boolean;
  /** Storage type of X, W, bias, residual and Y. */
  storage: StorageType;
}

/**
 * How an FP8 GEMM of one shape runs, best first: `fused` = cuBLASLt applies the per-channel weight scales and
 * per-row activation scales (outer-vector scaling, cuBLASLt ≥ 12.9 on Hopper), the bias and the residual;
 * `scaled` = the scales in cuBLASLt, bias and residual in our epilogue kernel; `unscaled` = a plain FP8 GEMM, all of
 * it in our epilogue. Chosen once per shape (the first that cuBLASLt accepts).
 */
export type Fp8GemmMode = 'fused' | 'scaled' | 'unscaled';
export const fp8GemmModes: readonly Fp8GemmMode[] = ['fused', 'scaled', 'unscaled'];

/** An FP8 operand: E4M3 bytes and one fp32 scale per row (activations) or per output channel (weights). */
export interface Fp8Operand {
  data: DevicePtr;
  scales: DevicePtr;
}

interface Plan {
  desc: bigint;
  a: bigint;
  b: bigint;
  d: bigint;
  algo: Buffer;
}

export class CublasLt {
  private readonly fn: Record<string, NativeFunction>;
  private readonly handle: bigint;
  private readonly plans = new Map<string, Plan>();
  private readonly alpha = new Float32Array([1]);
  private readonly beta = new Float32Array([0]);
  private readonly betaOne = new Float32Array([1]);
  private readonly pointer = new BigUint64Array(1);
  private readonly u32 = new Uint32Array(1);
  readonly version: number;

  constructor(
    libraryPath: string,
    private readonly workspace: { ptr: DevicePtr; bytes: number },
  ) {
    this.fn = bindLibrary(libraryPath, [
      'int cublasLtCreate(void *handle)',
      'size_t cublasLtGetVersion()',
      'int cublasLtMatmulDescCreate(void *desc, int computeType, int scaleType)',
      'int cublasLtMatmulDescSetAttribute(void *desc, int attribute, void *value, size_t size)',
      'int cublasLtMatrixLayoutCreate(void *layout, int type, uint64_t rows, uint64_t cols, int64_t ld)',
      'int cublasLtMatmulPreferenceCreate(void *pref)',
      'int cublasLtMatmulPreferenceSetAttribute(void *pref, int attribute, void *value, size_t size)',
      'int cublasLtMatmulAlgoGetHeuristic(void *handle, void *desc, void *a, void *b, void *c, void *d, void *pref, int requested, void *results, void *returned)',
      'int cublasLtMatmul(void *handle, void *desc, void *alpha, uint64_t a, void *adesc, uint64_t b, void *bdesc, void *beta, uint64_t c, void *cdesc, uint64_t d, void *ddesc, void *algo, uint64_t workspace, size_t workspaceBytes, void *stream)',
    ]);
    this.version = Number(this.fn.cublasLtGetVersion());
    const out = new BigUint64Array(1);
    this.check('cublasLtCreate', this.fn.cublasLtCreate(out));
    this.handle = out[0];
  }

  private check(call: string, status: number): void {
    if (status !== 0) throw new Error(`${call} failed (cublasStatus ${status})`);
  }

  private out(call: string, ...args: unknown[]): bigint {
    const out = new BigUint64Array(1);
    this.check(call, this.fn[call](out, ...args));
    return out[0];
  }

  private setDesc(desc: bigint, attribute: number, value: Uint8Array | Uint32Array | BigUint64Array): void {
    this.check('cublasLtMatmulDescSetAttribute', this.fn.cublasLtMatmulDescSetAttribute(desc, attribute, value, value.byteLength));
  }

  /**
   * Y[rows, cols] = X[rows, inner]·W[inner, cols] (+ bias[cols]) (+ residual[rows, cols]), all row-major in
   * the backend's storage type, fp32 accumulation (exact fp32 for f32 storage: no TF32). In cuBLAS's
   * column-major terms this is Yᵀ = Wᵀ·Xᵀ with no transposes: A = W (cols × inner, ld cols), B = X.
   */
  matmul(shape: GemmShape, x: DevicePtr, w: DevicePtr, y: DevicePtr, bias: DevicePtr | undefined, residual: DevicePtr | undefined, stream: Handle): void {
    const plan = this.plan(shape);
    if (shape.bias) {
      this.pointer[0] = BigInt(bias!);
      this.setDesc(plan.desc, DESC_BIAS_POINTER, this.pointer);
    }
    const beta = residual === undefined ? this.beta : this.betaOne;
    const c = residual ?? y;
    this.check('cublasLtMatmul', this.fn.cublasLtMatmul(
      this.handle, plan.desc, this.alpha, w, plan.a, x, plan.b, beta, c, plan.d, y, plan.d, plan.algo,
      this.workspace.ptr, this.workspace.bytes, stream,
    ));
  }

  /**
   * Y[r, c] = xScale[r]·wScale[c]·Σₖ x8[r, k]·w8[c, k] (+ bias[c])
   * (+ residual[r, c]), fp32 accumulation: X8 [rows, inner] and W8 [cols, inner] row-major E4M3 (both K-major, the
   * "TN" layout FP8 needs). In `mode`; returns false when cuBLASLt has no algorithm for it (or refuses the call).
   * What the mode leaves out (see Fp8GemmMode) the caller applies.
   */
  matmulFp8(mode: Fp8GemmMode, shape: GemmShape, x: Fp8Operand, w: Fp8Operand, y: DevicePtr, bias: DevicePtr | undefined, residual: DevicePtr | undefined, stream: Handle, fastAccum: boolean): boolean {
    const plan = this.planFp8(mode, shape, fastAccum);
    if (!plan) return false;
    if (mode !== 'unscaled') {
      this.pointer[0] = BigInt(w.scales);
      this.setDesc(plan.desc, DESC_A_SCALE_POINTER, this.pointer);
      this.pointer[0] = BigInt(x.scales);
      this.setDesc(plan.desc, DESC_B_SCALE_POINTER, this.pointer);
    }
    const fused = mode === 'fused';
    if (fused && shape.bias) {
      this.pointer[0] = BigInt(bias!);
      this.setDesc(plan.desc, DESC_BIAS_POINTER, this.pointer);
    }
    const withResidual = fused && residual !== undefined;
    const status = this.fn.cublasLtMatmul(
      this.handle, plan.desc, this.alpha, w.data, plan.a, x.data, plan.b, withResidual ? this.betaOne : this.beta, withResidual ? residual : y, plan.d, y, plan.d,
      plan.algo, this.workspace.ptr, this.workspace.bytes, stream,
    ) as number;
    return status === 0;
  }

  private readonly fp8Plans = new Map<string, Plan | null>();

  private planFp8(mode: Fp8GemmMode, shape: GemmShape, fastAccum: boolean): Plan | null {
    const key = `${mode}:${shape.rows}:${shape.inner}:${shape.cols}:${shape.bias}:${shape.storage}:${fastAccum}`;
    const known = this.fp8Plans.get(key);
    if (known !== undefined) return known;
    let plan: Plan | null = null;
    // An older cuBLASLt rejects the attributes it does not know (outer-vector scales came in 12.9): no plan then.
    if (shape.storage === 'bf16' || shape.storage === 'f16') try {
      const type = CUDA_R[shape.storage];
      const desc = this.out('cublasLtMatmulDescCreate', COMPUTE_32F, CUDA_R.f32);
      this.u32[0] = OP_T;
      this.setDesc(desc, DESC_TRANSA, this.u32);
      this.u32[0] = OP_N;
      this.setDesc(desc, DESC_TRANSB, this.u32);
      this.u32[0] = mode === 'fused' && shape.bias ? EPILOGUE_BIAS : EPILOGUE_DEFAULT;
      this.setDesc(desc, DESC_EPILOGUE, this.u32);
      this.setDesc(desc, DESC_FAST_ACCUM, Uint8Array.of(fastAccum ? 1 : 0)); // an int8_t attribute: 4 bytes are refused
      // The heuristic checks that the pointers it is told about are set; any aligned device address works here.
      this.pointer[0] = BigInt(this.workspace.ptr);
      if (mode === 'fused' && shape.bias) {
        this.u32[0] = type;
        this.setDesc(desc, DESC_BIAS_DATA_TYPE, this.u32);
        this.setDesc(desc, DESC_BIAS_POINTER, this.pointer);
      }
      if (mode !== 'unscaled') {
        this.u32[0] = SCALE_OUTER_VEC_32F;
        this.setDesc(desc, DESC_A_SCALE_MODE, this.u32);
        this.setDesc(desc, DESC_B_SCALE_MODE, this.u32);
        this.setDesc(desc, DESC_A_SCALE_POINTER, this.pointer);
        this.setDesc(desc, DESC_B_SCALE_POINTER, this.pointer);
      }
      const a = this.out('cublasLtMatrixLayoutCreate', CUDA_R_8F_E4M3, shape.inner, shape.cols, shape.inner);
      const b = this.out('cublasLtMatrixLayoutCreate', CUDA_R_8F_E4M3, shape.inner, shape.rows, shape.inner);
      const d = this.out('cublasLtMatrixLayoutCreate', type, shape.cols, shape.rows, shape.cols);
      const algo = this.heuristic(desc, a, b, d);
      if (algo) plan = { desc, a, b, d, algo };
    } catch {
      plan = null;
    }
    this.fp8Plans.set(key, plan);
    return plan;
  }

  /** The algorithm cuBLASLt's heuristic ranks first, or undefined when it has none. */
  private heuristic(desc: bigint, a: bigint, b: bigint, d: bigint): Buffer | undefined {
    const pref = this.out('cublasLtMatmulPreferenceCreate');
    const wsBytes = new BigUint64Array([BigInt(this.workspace.bytes)]);
    this.check('cublasLtMatmulPreferenceSetAttribute', this.fn.cublasLtMatmulPreferenceSetAttribute(pref, PREF_MAX_WORKSPACE_BYTES, wsBytes, 8));
    const results = Buffer.alloc(HEURISTIC_RESULT_BYTES);
    const returned = new Int32Array(1);
    const status = this.fn.cublasLtMatmulAlgoGetHeuristic(this.handle, desc, a, b, d, d, pref, 1, results, returned) as number;
    if (status !== 0 || returned[0] < 1 || results.readInt32LE(72) !== 0) return undefined;
    return Buffer.from(results.subarray(0, 64));
  }

  private plan(shape: GemmShape): Plan {
    const key = `${shape.rows}:${shape.inner}:${shape.cols}:${shape.bias}:${shape.storage}`;
    let plan = this.plans.get(key);
    if (plan) return plan;
    if (shape.storage === 'i32') throw new Error('cuBLASLt GEMMs are for float storage');
    const type = CUDA_R[shape.storage];
    const desc = this.out('cublasLtMatmulDescCreate', COMPUTE_32F, CUDA_R.f32);
    this.u32[0] = OP_N;
    this.setDesc(desc, DESC_TRANSA, this.u32);
    this.setDesc(desc, DESC_TRANSB, this.u32);
    this.u32[0] = shape.bias ? EPILOGUE_BIAS : EPILOGUE_DEFAULT;
    this.setDesc(desc, DESC_EPILOGUE, this.u32);
    const a = this.out('cublasLtMatrixLayoutCreate', type, shape.cols, shape.inner, shape.cols);
    const b = this.out('cublasLtMatrixLayoutCreate', type, shape.inner, shape.rows, shape.inner);
    const d = this.out('cublasLtMatrixLayoutCreate', type, shape.cols, shape.rows, shape.cols);
    const pref = this.out('cublasLtMatmulPreferenceCreate');
    const wsBytes = new BigUint64Array([BigInt(this.workspace.bytes)]);
    this.check('cublasLtMatmulPreferenceSetAttribute', this.fn.cublasLtMatmulPreferenceSetAttribute(pref, PREF_MAX_WORKSPACE_BYTES, wsBytes, 8));
    const results = Buffer.alloc(HEURISTIC_RESULT_BYTES);
    const returned = new Int32Array(1);
    // The bias pointer must be set for the heuristic to consider bias epilogues valid; any aligned address works.
    if (shape.bias) {
      this.pointer[0] = BigInt(this.workspace.ptr);
      this.setDesc(desc, DESC_BIAS_POINTER, this.pointer);
    }
    this.check('cublasLtMatmulAlgoGetHeuristic', this.fn.cublasLtMatmulAlgoGetHeuristic(this.handle, desc, a, b, d, d, pref, 1, results, returned));
    if (returned[0] < 1 || results.readInt32LE(72) !== 0) {
      throw new Error(`cuBLASLt has no algorithm for a ${shape.rows}×${shape.inner}·${shape.inner}×${shape.cols} ${shape.storage} GEMM`);
    }
    plan = { desc, a, b, d, algo: Buffer.from(results.subarray(0, 64)) };
    this.plans.set(key, plan);
    return plan;
  }
}
