// cuBLASLt through koffi: row-major GEMMs Y = X·W (+ bias) (+ residual) (+ GELU) with fp32 accumulation.
// One plan (descriptors + algorithm) per shape, made once and cached (the PLAN_CACHE_SIZE most recently used: a
// batch's row count makes a shape, and a long run's batches have ever new ones). The algorithm is pinned per weight shape:
// cuBLASLt's heuristic reads the row count and may pick another tile or split K for another batch, which changes
// the order of a row's sums, so a token's numbers would depend on its batch (docs/architecture.md, batch
// invariance). The algorithm pinned for a weight shape, with split-K off, serves every row count: the configuration
// measured fastest for it on this GPU architecture where gemm-algo-table.ts has one, else the heuristic's first at
// PIN_ROWS rows.
import type { DevicePtr, Handle } from './cuda-driver.js';
import { tunedGemmConfig, type GemmAlgoConfig, type TunedGemmKey } from './gemm-algo-table.js';
import { BoundedCache } from './bounded-cache.js';
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
const DESC_D_SCALE_POINTER = 20;
const DESC_FAST_ACCUM = 25;
const DESC_BIAS_DATA_TYPE = 26;
const DESC_A_SCALE_MODE = 31;
const ALGO_CONFIG_TILE_ID = 1;
const ALGO_CONFIG_SPLITK_NUM = 2;
const ALGO_CONFIG_REDUCTION_SCHEME = 3;
const ALGO_CONFIG_CTA_SWIZZLING = 4;
const ALGO_CONFIG_CUSTOM_OPTION = 5;
const ALGO_CONFIG_STAGES_ID = 6;
const ALGO_CONFIG_INNER_SHAPE_ID = 7;
const ALGO_CONFIG_CLUSTER_SHAPE_ID = 8;
const REDUCTION_SCHEME_NONE = 0;
const EPILOGUE_GELU_BIAS = 36;
const EPILOGUE_GELU = 32;
const DESC_B_SCALE_MODE = 32;
const SCALE_OUTER_VEC_32F = 3;
const SCALE_SCALAR_32F = 0;
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
  /** GELU in cuBLASLt's epilogue (its tanh form, applied to the fp32 sum before rounding): fp16/bf16, and FP8 GEMMs in
   * the `fused` mode (after the scales and the bias, as there). */
  gelu?: boolean;
  /** FP8 GEMMs: the operands' scales, one per row / output channel (outer-vector, the default) or one each
   * (`tensor`: cuBLASLt's classic per-tensor mode, the only one in which it writes E4M3). */
  fp8Scales?: 'rows' | 'tensor';
  /** FP8 GEMMs in the `tensor` scales: Y written as E4M3, multiplied by a D scale before rounding. */
  fp8Out?: boolean;
}

/** Plans kept per kind (storage-typed, FP8): a batch of a model uses ~10 shapes, so one batch's never leave while it
 * runs; a plan made again for an evicted row count gets the same pinned algorithm, so the same bytes. */
export const PLAN_CACHE_SIZE = 256;

/** Rows at which a weight shape's algorithm is chosen (a typical packed batch), then used for every row count. */
export const PIN_ROWS = 16384;
/** Row counts at which a pinned algorithm must be accepted (PIN_ROWS last). */
const PROBE_ROWS = [1, 7, 64, 333, 4099, PIN_ROWS];

/**
 * `tuned` (default): one algorithm per weight shape, split-K off, for every row count (batch-invariant bytes): the
 * measured configuration of gemm-algo-table.ts where it has one for this GPU, else the heuristic's first choice.
 * `pinned`: the heuristic's first choice always (VIRNUCPRO_GEMM_ALGO=pinned; the A/B that measures the table).
 * `per-rows`: the heuristic's first choice for each row count (VIRNUCPRO_GEMM_ALGO=per-rows; the A/B that measures
 * what pinning costs; not batch-invariant).
 */
export type GemmAlgoChoice = 'tuned' | 'pinned' | 'per-rows';
export const gemmAlgoChoices: readonly GemmAlgoChoice[] = ['tuned', 'pinned', 'per-rows'];
export function gemmAlgoChoice(env: NodeJS.ProcessEnv = process.env): GemmAlgoChoice {
  const value = env.VIRNUCPRO_GEMM_ALGO;
  if (value === undefined || value === '') return 'tuned';
  if (!(gemmAlgoChoices as readonly string[]).includes(value)) throw new Error(`VIRNUCPRO_GEMM_ALGO: '${value}' is not one of ${gemmAlgoChoices.join(', ')}`);
  return value as GemmAlgoChoice;
}

/** The table entry a plan may pin, and the data types cuBLASLt needs to initialise its algorithm. */
interface TunedLookup {
  key: TunedGemmKey;
  types: { a: number; b: number; c: number; d: number };
}

/**
 * How an FP8 GEMM of one shape runs, best first: `fused` = cuBLASLt applies the per-channel weight scales and
 * per-row activation scales (outer-vector scaling, cuBLASLt ≥ 12.9 on Hopper), the bias and the residual;
 * `scaled` = the scales in cuBLASLt, bias and residual in our epilogue kernel; `unscaled` = a plain FP8 GEMM, all of
 * it in our epilogue. Chosen once per shape (the first that cuBLASLt accepts).
 */
export type Fp8GemmMode = 'fused' | 'scaled' | 'unscaled';
export const fp8GemmModes: readonly Fp8GemmMode[] = ['fused', 'scaled', 'unscaled'];

/** An FP8 operand: E4M3 bytes and one fp32 scale per row (activations) or per output channel (weights), or one
 * scale for all (`tensor` scales). */
export interface Fp8Operand {
  data: DevicePtr;
  scales: DevicePtr;
}

/** Where an FP8 GEMM writes E4M3 output: the bytes, and the scale (one fp32) it multiplies the output by first. */
export interface Fp8Output {
  data: DevicePtr;
  scale: DevicePtr;
}

interface Plan {
  desc: bigint;
  a: bigint;
  b: bigint;
  /** C's layout: D's, except for E4M3 output (C stays in the storage type, unread with beta = 0). */
  c: bigint;
  d: bigint;
  algo: Buffer;
}

/** B (the activations), C and D layouts of one row count. */
interface RowLayouts {
  b: bigint;
  c: bigint;
  d: bigint;
}

export class CublasLt {
  private readonly fn: Record<string, NativeFunction>;
  private readonly handle: bigint;
  private readonly plans = new BoundedCache<string, Plan>(PLAN_CACHE_SIZE, (plan) => this.destroyPlan(plan));
  private readonly alpha = new Float32Array([1]);
  private readonly beta = new Float32Array([0]);
  private readonly betaOne = new Float32Array([1]);
  private readonly pointer = new BigUint64Array(1);
  private readonly u32 = new Uint32Array(1);
  readonly version: number;
  /** Algorithm per choice and weight shape (key without the rows), split-K off; see PIN_ROWS. */
  private readonly pinnedAlgos = new Map<string, Buffer | null>();
  /** Weight shapes whose pinned algorithm is gemm-algo-table.ts's configuration (what a run reports). */
  readonly tuned = new Set<string>();
  /** Plans whose row count the pinned algorithm could not serve (they use the heuristic's choice: not batch-invariant). */
  readonly unpinned = new Set<string>();

  constructor(
    libraryPath: string,
    private readonly workspace: { ptr: DevicePtr; bytes: number },
    /** The GPU's architecture, e.g. `sm_90`: which measured configurations apply (gemm-algo-table.ts). */
    private readonly arch = '',
    /** Changeable at run time (benchmarks A/B it in one process): plans are cached per choice. */
    public algoChoice: GemmAlgoChoice = gemmAlgoChoice(),
  ) {
    this.fn = bindLibrary(libraryPath, [
      'int cublasLtCreate(void *handle)',
      'size_t cublasLtGetVersion()',
      'int cublasLtMatmulDescCreate(void *desc, int computeType, int scaleType)',
      'int cublasLtMatmulDescDestroy(uint64_t desc)',
      'int cublasLtMatmulDescSetAttribute(void *desc, int attribute, void *value, size_t size)',
      'int cublasLtMatrixLayoutCreate(void *layout, int type, uint64_t rows, uint64_t cols, int64_t ld)',
      'int cublasLtMatmulPreferenceCreate(void *pref)',
      'int cublasLtMatmulPreferenceSetAttribute(void *pref, int attribute, void *value, size_t size)',
      'int cublasLtMatmulAlgoGetHeuristic(void *handle, void *desc, void *a, void *b, void *c, void *d, void *pref, int requested, void *results, void *returned)',
      'int cublasLtMatmulAlgoConfigSetAttribute(void *algo, int attribute, void *value, size_t size)',
      'int cublasLtMatmulAlgoInit(void *handle, int computeType, int scaleType, int aType, int bType, int cType, int dType, int algoId, void *algo)',
      'int cublasLtMatmulAlgoCheck(void *handle, void *desc, void *a, void *b, void *c, void *d, void *algo, void *result)',
      'int cublasLtMatrixLayoutDestroy(uint64_t layout)',
      'int cublasLtMatmulPreferenceDestroy(uint64_t pref)',
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
   * What the mode leaves out (see Fp8GemmMode) the caller applies. With `tensor` scales (shape.fp8Scales) each
   * operand has one scale; with `out` (shape.fp8Out) Y is written as E4M3 to out.data, multiplied by out.scale
   * first, and `y` (the storage-typed C) is not read.
   */
  matmulFp8(mode: Fp8GemmMode, shape: GemmShape, x: Fp8Operand, w: Fp8Operand, y: DevicePtr, bias: DevicePtr | undefined, residual: DevicePtr | undefined, stream: Handle, fastAccum: boolean, out?: Fp8Output): boolean {
    if ((out !== undefined) !== (shape.fp8Out === true)) throw new Error('matmulFp8: E4M3 output needs its Fp8Output, and only then');
    const plan = this.planFp8(mode, shape, fastAccum);
    if (!plan) return false;
    if (out) {
      this.pointer[0] = BigInt(out.scale);
      this.setDesc(plan.desc, DESC_D_SCALE_POINTER, this.pointer);
    }
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
      this.handle, plan.desc, this.alpha, w.data, plan.a, x.data, plan.b, withResidual ? this.betaOne : this.beta, withResidual ? residual : y, plan.c, out ? out.data : y, plan.d,
      plan.algo, this.workspace.ptr, this.workspace.bytes, stream,
    ) as number;
    return status === 0;
  }

  private readonly fp8Plans = new BoundedCache<string, Plan | null>(PLAN_CACHE_SIZE, (plan) => { if (plan) this.destroyPlan(plan); });

  /** Plans cached now (storage-typed and FP8): at most 2 × PLAN_CACHE_SIZE however long the run. */
  get planCount(): number {
    return this.plans.size + this.fp8Plans.size;
  }

  /** Frees an evicted plan's descriptors. cuBLASLt reads them when a GEMM is enqueued, not when it runs (PyTorch
   * destroys its descriptors right after each call), so GEMMs still queued on the stream are unaffected. */
  private destroyPlan(plan: Plan): void {
    this.fn.cublasLtMatmulDescDestroy(plan.desc);
    this.fn.cublasLtMatrixLayoutDestroy(plan.a);
    this.fn.cublasLtMatrixLayoutDestroy(plan.b);
    if (plan.c !== plan.d) this.fn.cublasLtMatrixLayoutDestroy(plan.c);
    this.fn.cublasLtMatrixLayoutDestroy(plan.d);
  }

  private planFp8(mode: Fp8GemmMode, shape: GemmShape, fastAccum: boolean): Plan | null {
    // GELU rides only in the fused mode's epilogue (the other modes leave the scales, so the GELU, to the caller).
    const gelu = mode === 'fused' && shape.gelu === true;
    const tensorScales = shape.fp8Scales === 'tensor';
    const fp8Out = shape.fp8Out === true;
    // Per-tensor scales and E4M3 output only in the fused mode (the others leave the scales to an epilogue of rows).
    if ((tensorScales || fp8Out) && mode !== 'fused') return null;
    if (fp8Out && !tensorScales) return null; // cuBLASLt 13.1 on Hopper: no E4M3 output with outer-vector scales
    const weightKey = `fp8:${mode}:${shape.inner}:${shape.cols}:${shape.bias}:${gelu}:${shape.storage}:${fastAccum}:${tensorScales ? 'tensor' : 'rows'}:${fp8Out ? 'e4m3' : 'storage'}`;
    const key = `${this.algoChoice}:${shape.rows}:${weightKey}`;
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
      const bias = mode === 'fused' && shape.bias;
      this.u32[0] = gelu ? (bias ? EPILOGUE_GELU_BIAS : EPILOGUE_GELU) : bias ? EPILOGUE_BIAS : EPILOGUE_DEFAULT;
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
        this.u32[0] = tensorScales ? SCALE_SCALAR_32F : SCALE_OUTER_VEC_32F;
        this.setDesc(desc, DESC_A_SCALE_MODE, this.u32);
        this.setDesc(desc, DESC_B_SCALE_MODE, this.u32);
        this.setDesc(desc, DESC_A_SCALE_POINTER, this.pointer);
        this.setDesc(desc, DESC_B_SCALE_POINTER, this.pointer);
      }
      if (fp8Out) this.setDesc(desc, DESC_D_SCALE_POINTER, this.pointer);
      const a = this.out('cublasLtMatrixLayoutCreate', CUDA_R_8F_E4M3, shape.inner, shape.cols, shape.inner);
      const rowLayouts = (rows: number): RowLayouts => {
        const c = this.out('cublasLtMatrixLayoutCreate', type, shape.cols, rows, shape.cols);
        return {
          b: this.out('cublasLtMatrixLayoutCreate', CUDA_R_8F_E4M3, shape.inner, rows, shape.inner),
          c,
          d: fp8Out ? this.out('cublasLtMatrixLayoutCreate', CUDA_R_8F_E4M3, shape.cols, rows, shape.cols) : c,
        };
      };
      const layouts = rowLayouts(shape.rows);
      // The table's fp8 configurations were measured in the fused mode with fast accumulation.
      const tuned: TunedLookup | undefined = mode === 'fused' && fastAccum
        ? {
          key: { arch: this.arch, storage: 'fp8', inner: shape.inner, cols: shape.cols, bias: shape.bias, gelu, ...(tensorScales ? { scales: 'tensor' as const } : {}), ...(fp8Out ? { fp8Out } : {}) },
          types: { a: CUDA_R_8F_E4M3, b: CUDA_R_8F_E4M3, c: type, d: fp8Out ? CUDA_R_8F_E4M3 : type },
        }
        : undefined;
      const algo = this.chooseAlgo(weightKey, key, desc, a, layouts, rowLayouts, tuned);
      if (algo) plan = { desc, a, ...layouts, algo };
      else this.destroyPlan({ desc, a, ...layouts, algo: Buffer.alloc(0) }); // kept as null: nothing to hold
    } catch {
      plan = null;
    }
    this.fp8Plans.set(key, plan);
    return plan;
  }

  /**
   * The algorithm for a plan: the weight shape's pinned one when cuBLASLt accepts it for these rows, else the
   * heuristic's choice for these rows (recorded in `unpinned`). The pinned one is the first that, with split-K off,
   * cuBLASLt accepts at every probe row count (odd shapes rule some algorithms out at some): the table's measured
   * configuration (choice `tuned`), then the heuristic's candidates at PIN_ROWS, best first.
   */
  private chooseAlgo(weightKey: string, planKey: string, desc: bigint, a: bigint, layouts: RowLayouts, rowLayouts: (rows: number) => RowLayouts, tuned?: TunedLookup): Buffer | undefined {
    if (this.algoChoice === 'per-rows') return this.heuristics(desc, a, layouts, 1)[0];
    const pinKey = `${this.algoChoice}:${weightKey}`;
    let pinned = this.pinnedAlgos.get(pinKey);
    if (pinned === undefined) {
      const probes = PROBE_ROWS.map(rowLayouts);
      const at = probes[probes.length - 1]; // PIN_ROWS
      const acceptedEverywhere = (algo: Buffer) => probes.every((p) => this.accepts(desc, a, p, algo));
      const config = this.algoChoice === 'tuned' && tuned ? tunedGemmConfig(tuned.key) : undefined;
      const measured = config && this.configuredAlgo(config, tuned!.types);
      if (measured && acceptedEverywhere(measured)) {
        pinned = measured;
        this.tuned.add(weightKey);
      } else {
        pinned = this.heuristics(desc, a, at, 16).map((algo) => this.withoutSplitK(algo)).find(acceptedEverywhere) ?? null;
      }
      for (const p of probes) {
        this.fn.cublasLtMatrixLayoutDestroy(p.b);
        if (p.c !== p.d) this.fn.cublasLtMatrixLayoutDestroy(p.c);
        this.fn.cublasLtMatrixLayoutDestroy(p.d);
      }
      this.pinnedAlgos.set(pinKey, pinned);
    }
    if (pinned && this.accepts(desc, a, layouts, pinned)) return Buffer.from(pinned);
    this.unpinned.add(planKey);
    return this.heuristics(desc, a, layouts, 1)[0];
  }

  /** A table configuration as a cuBLASLt algorithm, split-K off; undefined when this cuBLASLt does not know it. */
  private configuredAlgo(config: GemmAlgoConfig, types: TunedLookup['types']): Buffer | undefined {
    const algo = Buffer.alloc(64);
    if (this.fn.cublasLtMatmulAlgoInit(this.handle, COMPUTE_32F, CUDA_R.f32, types.a, types.b, types.c, types.d, config.id, algo) !== 0) return undefined;
    const u16 = new Uint16Array(1);
    const set = (attribute: number, value: number, wide = true) => {
      const buffer = wide ? this.u32 : u16;
      buffer[0] = value;
      return this.fn.cublasLtMatmulAlgoConfigSetAttribute(algo, attribute, buffer, buffer.byteLength) === 0;
    };
    const ok = set(ALGO_CONFIG_TILE_ID, config.tile) && set(ALGO_CONFIG_STAGES_ID, config.stages) && set(ALGO_CONFIG_CTA_SWIZZLING, config.swizzle)
      && set(ALGO_CONFIG_CUSTOM_OPTION, config.custom) && set(ALGO_CONFIG_INNER_SHAPE_ID, config.innerShape, false) && set(ALGO_CONFIG_CLUSTER_SHAPE_ID, config.cluster, false);
    return ok ? this.withoutSplitK(algo) : undefined;
  }

  private withoutSplitK(algo: Buffer): Buffer {
    this.u32[0] = 1;
    this.check('cublasLtMatmulAlgoConfigSetAttribute', this.fn.cublasLtMatmulAlgoConfigSetAttribute(algo, ALGO_CONFIG_SPLITK_NUM, this.u32, 4));
    this.u32[0] = REDUCTION_SCHEME_NONE;
    this.check('cublasLtMatmulAlgoConfigSetAttribute', this.fn.cublasLtMatmulAlgoConfigSetAttribute(algo, ALGO_CONFIG_REDUCTION_SCHEME, this.u32, 4));
    return algo;
  }

  /** Whether cuBLASLt accepts `algo` for these layouts within our workspace. */
  private accepts(desc: bigint, a: bigint, { b, c, d }: RowLayouts, algo: Buffer): boolean {
    const result = Buffer.alloc(HEURISTIC_RESULT_BYTES);
    const status = this.fn.cublasLtMatmulAlgoCheck(this.handle, desc, a, b, c, d, algo, result) as number;
    return status === 0 && result.readBigUInt64LE(64) <= BigInt(this.workspace.bytes);
  }

  /** Up to `count` algorithms in the order cuBLASLt's heuristic ranks them (empty when it has none). */
  private heuristics(desc: bigint, a: bigint, { b, c, d }: RowLayouts, count: number): Buffer[] {
    const pref = this.out('cublasLtMatmulPreferenceCreate');
    const wsBytes = new BigUint64Array([BigInt(this.workspace.bytes)]);
    this.check('cublasLtMatmulPreferenceSetAttribute', this.fn.cublasLtMatmulPreferenceSetAttribute(pref, PREF_MAX_WORKSPACE_BYTES, wsBytes, 8));
    const results = Buffer.alloc(HEURISTIC_RESULT_BYTES * count);
    const returned = new Int32Array(1);
    const status = this.fn.cublasLtMatmulAlgoGetHeuristic(this.handle, desc, a, b, c, d, pref, count, results, returned) as number;
    this.fn.cublasLtMatmulPreferenceDestroy(pref);
    if (status !== 0) return [];
    const algos: Buffer[] = [];
    for (let i = 0; i < returned[0]; i++) {
      const at = i * HEURISTIC_RESULT_BYTES;
      if (results.readInt32LE(at + 72) === 0) algos.push(Buffer.from(results.subarray(at, at + 64)));
    }
    return algos;
  }

  private plan(shape: GemmShape): Plan {
    const weightKey = `${shape.inner}:${shape.cols}:${shape.bias}:${shape.storage}:${shape.gelu ?? false}`;
    const key = `${this.algoChoice}:${shape.rows}:${weightKey}`;
    let plan = this.plans.get(key);
    if (plan) return plan;
    if (shape.storage === 'i32') throw new Error('cuBLASLt GEMMs are for float storage');
    if (shape.gelu && shape.storage === 'f32') throw new Error("cuBLASLt's GELU epilogue is the tanh form: fp32 keeps the erf GELU kernel");
    const type = CUDA_R[shape.storage];
    const desc = this.out('cublasLtMatmulDescCreate', COMPUTE_32F, CUDA_R.f32);
    this.u32[0] = OP_N;
    this.setDesc(desc, DESC_TRANSA, this.u32);
    this.setDesc(desc, DESC_TRANSB, this.u32);
    this.u32[0] = shape.gelu ? (shape.bias ? EPILOGUE_GELU_BIAS : EPILOGUE_GELU) : shape.bias ? EPILOGUE_BIAS : EPILOGUE_DEFAULT;
    this.setDesc(desc, DESC_EPILOGUE, this.u32);
    // The bias pointer must be set for the heuristic to consider bias epilogues valid; any aligned address works.
    if (shape.bias) {
      this.pointer[0] = BigInt(this.workspace.ptr);
      this.setDesc(desc, DESC_BIAS_POINTER, this.pointer);
    }
    const a = this.out('cublasLtMatrixLayoutCreate', type, shape.cols, shape.inner, shape.cols);
    const rowLayouts = (rows: number): RowLayouts => {
      const d = this.out('cublasLtMatrixLayoutCreate', type, shape.cols, rows, shape.cols);
      return { b: this.out('cublasLtMatrixLayoutCreate', type, shape.inner, rows, shape.inner), c: d, d };
    };
    const layouts = rowLayouts(shape.rows);
    const tuned: TunedLookup = { key: { arch: this.arch, storage: shape.storage, inner: shape.inner, cols: shape.cols, bias: shape.bias, gelu: shape.gelu ?? false }, types: { a: type, b: type, c: type, d: type } };
    const algo = this.chooseAlgo(weightKey, key, desc, a, layouts, rowLayouts, tuned);
    if (!algo) {
      throw new Error(`cuBLASLt has no algorithm for a ${shape.rows}×${shape.inner}·${shape.inner}×${shape.cols} ${shape.storage} GEMM`);
    }
    plan = { desc, a, ...layouts, algo };
    this.plans.set(key, plan);
    return plan;
  }
}
