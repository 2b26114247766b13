// The tfjs KernelBackend 'cuda': tensor data in device memory (caching allocator), one stream per process,
// kernels compiled by NVRTC, GEMMs by cuBLASLt. Float32 tensors are stored in the precision's storage type.
import { DataStorage, engine, KernelBackend, type BackendTimingInfo, type BackendValues, type DataId, type DataType, type TensorInfo } from '@tensorflow/tfjs-core';
import { CachingAllocator } from './caching-allocator.js';
import { CublasLt, fp8GemmModes, type Fp8GemmMode, type Fp8Operand, type Fp8Output, type GemmAlgoChoice } from './cublaslt.js';
import { CudaDriver, type DeviceInfo, type DevicePtr, type Handle } from './cuda-driver.js';
import { castSource } from './cuda/cast.js';
import { fp8Source } from './cuda/fp8.js';
import { fp8BiasCorrectionSource } from './cuda/fp8-bias-correction.js';
import { fp8SequenceCorrectionSource } from './cuda/fp8-sequence-correction.js';
import { quantizeRowsLaunch } from './fp8-quantize-rows.js';
import { attentionOutputMargin, geluNegativeBound } from './fp8-static-scales.js';
import { describeFp8Bf16Blocks, fp8Bf16BlockCount, parseFp8Bf16Blocks, type Fp8Bf16Blocks } from './fp8-bf16-blocks.js';
import { attentionMinBlocks } from './attention-min-blocks.js';
import { hostTrace } from './host-trace.js';
import { GpuUtilizationSampler, nvmlUtilizationReader, type UtilizationTotals } from './gpu-utilization.js';
import { KernelCache } from './kernel-cache.js';
import { KernelProfiler, type KernelTime } from './kernel-profiler.js';
import { koffi } from './koffi.js';
import { KernelLibrary, type ArgSignature, type CudaSource } from './kernel-library.js';
import { findCudaLibraries, type CudaLibraries } from './library-discovery.js';
import { Nvrtc } from './nvrtc.js';
import { PageLockedArena } from './page-locked-arena.js';
import { bytesPerElement, defaultPrecision, elementsPerWord, floatStorage, storageDefine, type Precision, type StorageType } from './precision.js';

export interface CudaBackendOptions {
  /** Ordinal among the visible devices (CUDA_VISIBLE_DEVICES picks which those are). Default 0. */
  device?: number;
  /** Storage precision of float32 tensors. Default 'fp16'. */
  precision?: Precision;
  /** Library paths; found with findCudaLibraries() when not given. */
  libraries?: CudaLibraries;
  /** Folder of the NVRTC kernel cache (default: see KernelCache). */
  cacheDir?: string;
}

export interface CudaBackendDescription {
  device: string;
  arch: string;
  driverCudaVersion: string;
  nvrtcVersion: string;
  cublasLtVersion: number;
  precision: Precision;
  libraries: { cuda: string; cublasLt: string; nvrtc: string; includeDir: string };
  /** fp8 only: how each GEMM shape ran (`inner→cols`: an Fp8GemmMode, or 'bf16' where cuBLASLt had no FP8 algorithm) and the roles kept in bf16. */
  fp8?: {
    gemms: Record<string, Fp8GemmMode | 'bf16'>;
    bf16Layers: Fp8LayerRole[];
    /** Whether a layer norm's rows take static per-tensor scales (CudaBackend.fp8StaticScales). */
    staticScales: boolean;
    /** Whether packed attention writes `out`'s E4M3 input with a static scale (CudaBackend.fp8StaticAttention). */
    staticAttention: boolean;
    /** Whether a layer norm read only by linear layers writes its E4M3 rows alone (CudaBackend.fp8NormRowsOnly). */
    normRowsOnly: boolean;
    /** Linear layers whose bias was corrected for their weight's rounding (a calibration pass ran): fp8CorrectedBias. */
    biasCorrectedLayers: number;
    /** Whether linear layers without GELU take each sequence's own correction (CudaBackend.fp8SequenceCorrection). */
    sequenceCorrection: boolean;
    /** How many of a model's first blocks run in bf16 (CudaBackend.fp8Bf16Blocks). */
    bf16Blocks: number | string;
    /** The layers those blocks keep in bf16 (CudaBackend.fp8Bf16BlockLayers); 'all': the whole block. */
    bf16BlockLayers: Fp8LayerRole[] | 'all';
    /** GEMM shapes run with per-tensor scales: `tensor` (storage-typed output) or `tensor→e4m3` (fc1 writing fc2's
     * input); a shape that cuBLASLt refused there ran as in `gemms`. */
    tensorGemms: Record<string, 'tensor' | 'tensor→e4m3'>;
  };
}

/**
 * Which linear layer a GEMM is, as the fp8 path tells them apart (by where its input comes from): `qkv` = input
 * written by a layer norm, no activation; `fc1` = input from a layer norm, GELU after; `fc2` = input written by
 * fc1's GELU epilogue; `out` = any other input (the attention output), quantised by a row pass of its own.
 */
export type Fp8LayerRole = 'qkv' | 'out' | 'fc1' | 'fc2';
export const fp8LayerRoles: readonly Fp8LayerRole[] = ['qkv', 'out', 'fc1', 'fc2'];

/** A tensor's rows as E4M3 bytes with one scale per row, written by the kernel that produced the tensor. */
export interface Fp8Rows extends Fp8Operand {
  cols: number;
  /** The kernel that wrote them: a layer norm, fc1's GELU epilogue, packed attention, or a quantisation pass of its own. */
  source: 'norm' | 'gelu' | 'attention' | 'pass';
  /** One static scale for all rows (fp8-static-scales.ts) at `scales`, owned by the weights it derives from. */
  perTensor?: boolean;
}

export interface TensorData {
  ptr: DevicePtr;
  /** Elements. */
  size: number;
  storage: StorageType;
  dtype: DataType;
  refCount: number;
  /** fp8: the same rows as E4M3 (the input of an FP8 GEMM). */
  fp8?: Fp8Rows;
  /** fp8: `ptr` was never written; the tensor's values are its fp8 rows, turned into T on first use (see ptr()). */
  stale?: boolean;
  /** fp8: this weight [inner, cols] quantised per output channel and transposed, made on first use as a weight. */
  fp8Weight?: Fp8Operand & { cols: number };
  /** fp8: the same with one scale (for GEMMs with per-tensor scales). */
  fp8WeightTensor?: Fp8Operand & { cols: number };
  /** fp8, a layer norm's gamma: its output's static scale and 2-norm bound (layer_norm_fp8_bounds), with beta's id. */
  fp8NormBounds?: { beta: DataId; ptr: DevicePtr; serial: number };
  /** fp8, a weight: [bound, scale, 1/scale] of an output written as E4M3 (Fp8OutputUse), for the input bounds (by
   * their serial: an address can be reused) and the bias they were made for. */
  fp8OutputScales?: Partial<Record<Fp8OutputUse, { boundsSerial: number; bias: DataId | undefined; ptr: DevicePtr }>>;
  /** fp8, a linear layer's output on static rows: what a static bound of its columns derives from (fp8OutputScales). */
  fp8StaticProducer?: { weight: TensorInfo; bias: TensorInfo | undefined; inputBounds: DevicePtr };
  /** fp8, a weight: the column sums of its layer's input over a calibration pass (withQuantisationCalibration). */
  fp8InputSums?: { sums: DevicePtr; rows: number };
  /** fp8, a weight: Q(W) − W [inner, cols] in T for each copy of the weight (fp8WeightError), made on first use. */
  fp8WeightError?: Partial<Record<'rows' | 'tensor', { ptr: DevicePtr; cols: number }>>;
  /** fp8, a weight: its layer's bias with the weight rounding's effect on the calibration mean taken out, per copy
   * of the weight (fp8CorrectedBias), with the bias it was made from. */
  fp8Bias?: Partial<Record<'rows' | 'tensor', { from: DataId | undefined; bias: TensorInfo }>>;
}

/** What a static E4M3 output scale is for: fc1's GELU output (`gelu`), or packed attention's output from the qkv
 * layer's value columns (`attention`), see fp8-static-scales.ts. */
export type Fp8OutputUse = 'gelu' | 'attention';

const WORKSPACE_BYTES = 64 * 2 ** 20;
/** Uploads larger than this (weights not read into uploadBuffers) are copied from their JS arrays: pinning memory for
 * them would cost more than the drain they wait for. */
const PINNED_UPLOAD_MAX_BYTES = 8 * 2 ** 20;
/** Blocks the staged uploads are cut from: two in turn hold many batches' inputs. */
const PINNED_UPLOAD_BLOCK_BYTES = 16 * 2 ** 20;
const THREADS = 256;

export class CudaBackend extends KernelBackend {
  readonly driver: CudaDriver;
  readonly device: DeviceInfo;
  readonly stream: Handle;
  readonly allocator: CachingAllocator;
  readonly kernels: KernelLibrary;
  readonly blas: CublasLt;
  /** The precision the backend was created with (float tensors are stored in it unless in withFullPrecision). */
  readonly precision: Precision;
  readonly libraries: CudaLibraries;
  readonly nvrtcVersion: string;
  private readonly data: DataStorage<TensorData>;
  private readonly staging: { ptr: bigint; bytes: number; busy: boolean }[] = [];
  /** Page-locked buffers that weights are read into (@virnucpro/ops uploadBuffers); undefined when switched off. */
  private readonly pageLocked: PageLockedArena | undefined;
  /** Page-locked buffers every other upload of up to PINNED_UPLOAD_MAX_BYTES is staged through (copyToDevice);
   * undefined unless $VIRNUCPRO_PINNED_UPLOADS=1. */
  private readonly pinnedUploads: PageLockedArena | undefined;
  private readonly constants = new Map<string, DevicePtr>();
  private profiler: KernelProfiler | undefined;
  private utilization: GpuUtilizationSampler | undefined;
  private storage: StorageType;
  /** fp8: the linear layers that stay in bf16 ($VIRNUCPRO_FP8_BF16_LAYERS, a comma list of Fp8LayerRole; tools may change it). */
  fp8Bf16Layers: Set<Fp8LayerRole>;
  /** fp8: accumulate FP8 products in the tensor cores' fast way, without cuBLASLt's periodic promotion to fp32 — the
   * mode TransformerEngine uses for forward GEMMs (`_2X_ACC_FPROP = False`). Measured on ESM-2 3B (H100): 1.13–1.15× the
   * exact mode's speed at the same cosine to fp32 (0.99360 vs 0.99362; the E4M3 rounding of the inputs dominates).
   * $VIRNUCPRO_FP8_FAST_ACCUM=0 selects the exact mode (the A/B). */
  fp8FastAccum: boolean;
  /** fp16/bf16: fc1's GELU in cuBLASLt's epilogue (tanh form, on the fp32 sum before rounding; it differs from the
   * erf GELU by < 5e-4, under bf16's rounding) instead of an erf pass over the output ($VIRNUCPRO_GELU_EPILOGUE=0:
   * the erf pass, the A/B). fp8: the same in the FP8 GEMM's epilogue (after the scales and the bias), where cuBLASLt
   * takes it, and fc2's fp8 rows are then quantised without an erf per value. fp32 always runs the erf GELU. */
  geluEpilogue: boolean;
  /** Layer norm with one warp per row (shuffle reductions, eight rows a block) instead of one block per row;
   * $VIRNUCPRO_LN_PER_WARP=0 selects the block-per-row kernel (the A/B; tools may change it). */
  layerNormPerWarp: boolean;
  /** fp8: rows quantised by the `*_regs` kernels, each row read and finished (fc1's GELU) once, not twice: the same
   * bytes, 1.04–1.06× on ESM-2 3B (H100, 2026-11-25). $VIRNUCPRO_FP8_ROWS_IN_REGISTERS=0 re-reads the row (the A/B). */
  fp8RowsInRegisters: boolean;
  /** fp8: a GeGLU whose output feeds an FP8 GEMM (DNABERT-S's fc2) writes that output's fp8 rows in the same pass
   * (`geglu_quantize_rows_regs`: the same bytes as GeGLU then a row pass, checked on an H100 on 2026-11-25) and no
   * T: 1.05–1.19× on DNABERT-S fp8. $VIRNUCPRO_FP8_GEGLU_FUSED=0 writes T and quantises it in a pass of its own (the A/B). */
  fp8GegluFused: boolean;
  /** fp8: a layer norm writes its fp8 rows with one static scale derived from gamma and beta (never from the batch:
   * fp8-static-scales.ts), so qkv and fc1 run with cuBLASLt's per-tensor scales (their weights quantised with one
   * scale) and fc1 writes fc2's E4M3 input itself, with a static scale from its weights: no quantisation pass over
   * fc1's output. Where cuBLASLt refuses a shape so, that GEMM takes per-row scales as before.
   * $VIRNUCPRO_FP8_STATIC_SCALES=0: per-row scales everywhere (the A/B; tools may change it). */
  fp8StaticScales: boolean;
  /** fp8 with static scales: a layer norm whose output only linear layers read (VnpLayerNormAttrs.linearInputOnly:
   * ESM-2's pre-norms) writes its E4M3 rows and no T, while its consumers (qkv, fc1) run FP8 GEMMs on those rows:
   * 7.5 instead of 12.5 bytes of traffic a value. Off during a calibration pass (it reads T), with a per-sequence
   * correction, or where qkv or fc1 stay in bf16. $VIRNUCPRO_FP8_NORM_ROWS_ONLY=0: T as well (the A/B). */
  get fp8NormRowsOnly(): boolean {
    return this.fp8NormRowsOnlyEnabled && this.fp8Calibration === undefined && !this.fp8SequenceCorrection
      && !this.fp8Bf16Layers.has('qkv') && !this.fp8Bf16Layers.has('fc1');
  }
  /** See fp8NormRowsOnly (tools may change it). */
  fp8NormRowsOnlyEnabled: boolean;
  /** fp8 with static scales: packed attention writes its output as E4M3 with a static scale from the qkv layer's
   * value columns (attentionFp8OutputScale), and no T: no quantisation pass over the attention output. `out` keeps
   * its outer-vector GEMM (per-channel weight scales; the static scale as every row's): cuBLASLt 13.1 refused its
   * per-tensor mode with the residual as a C apart from D (H100, 2026-11-26). $VIRNUCPRO_FP8_STATIC_ATTENTION=0: T
   * and a row pass, as before (the A/B). */
  fp8StaticAttention: boolean;
  /** fp8: linear layers take a bias corrected for their weight's rounding (fp8-bias-correction.ts), where a model
   * ran its calibration pass (withQuantisationCalibration). $VIRNUCPRO_FP8_BIAS_CORRECTION=0: no calibration, the
   * plain bias (the A/B). */
  fp8BiasCorrection: boolean;
  /** fp8: a linear layer without GELU that is told its rows' sequences takes its weight rounding's effect on each
   * sequence's own mean input row out of that sequence's rows (fp8-sequence-correction.ts) in place of the
   * calibrated bias; fc1 (GELU in cuBLASLt's epilogue) keeps the calibrated one. Off unless
   * $VIRNUCPRO_FP8_SEQUENCE_CORRECTION=1: unfused it cost ESM-2 3B 26 % of its fp8 speed for 10 % less 1 − cosine
   * (H100, 2026-11-26, docs/benchmarks/cuda.md). */
  fp8SequenceCorrection: boolean;
  /** fp8: how many of a model's first blocks run in bf16 (withModelBlock; fp8-bf16-blocks.ts): by default ⌈blocks/9⌉
   * (ESM-2 3B: 4 of 36, DNABERT-S: 2 of 12). Rounding error that enters early passes through every later block: on
   * ESM-2 3B the first 4 blocks in bf16 cut 1 − cosine to fp32 4× (0.99625 → 0.99906 at 52 tokens) for 6–8 % of the
   * fp8 speed (H100, 2026-11-26, docs/benchmarks/cuda.md). $VIRNUCPRO_FP8_BF16_BLOCKS: N for every model (0: every
   * block in fp8, the A/B) or DEPTH:N,… per model depth (tools may change it). */
  fp8Bf16Blocks: Fp8Bf16Blocks;
  /** fp8: the linear layers those first blocks keep in bf16; undefined: the whole block as in bf16 (also its layer
   * norms' and attention's outputs). $VIRNUCPRO_FP8_BF16_BLOCK_LAYERS, a comma list of Fp8LayerRole (tools may change it). */
  fp8Bf16BlockLayers?: Set<Fp8LayerRole>;
  /** fp8: inside a block that runs in bf16 (withModelBlock) or a refinement (withRefinementPrecision). */
  private inBf16Block = false;
  /** fp8: while a calibration pass runs, the column sums of each linear layer's input, by weight. */
  private fp8Calibration?: Map<DataId, { sums: DevicePtr; rows: number }>;
  /** fp8: weights that hold calibration sums now. */
  private fp8CalibratedLayers = 0;
  /** Blocks per SM the tensor-core attention kernel is compiled for (attention-min-blocks.ts: 5 on sm_90, the
   * compiler's choice, 0, elsewhere; $VIRNUCPRO_ATTENTION_MIN_BLOCKS for the A/B; tools may change it). */
  attentionMinBlocks: number;
  /** fp8: the mode cuBLASLt took per GEMM shape, one table per accumulation mode (each has its own algorithms, and
   * tools switch fp8FastAccum at run time). */
  private readonly fp8GemmTables = { exact: new Map<string, Fp8GemmMode | 'bf16'>(), fast: new Map<string, Fp8GemmMode | 'bf16'>() };
  /** fp8: whether cuBLASLt took GELU in the fused mode's epilogue, per GEMM shape and accumulation mode. */
  private readonly fp8GeluFused = new Map<string, boolean>();
  /** fp8: shapes run with per-tensor scales (describe's tensorGemms), and those cuBLASLt refused so (asked once). */
  private readonly fp8TensorGemms = new Map<string, 'tensor' | 'tensor→e4m3'>();
  private readonly fp8TensorRefused = new Set<string>();
  /** fp8: the serial of each layer norm's bounds buffer now at an address (fp8NormBounds), for fp8OutputScales' cache. */
  private readonly fp8BoundsSerials = new Map<DevicePtr, number>();
  private fp8BoundsMade = 0;

  constructor(options: CudaBackendOptions = {}) {
    super();
    this.libraries = options.libraries ?? findCudaLibraries();
    this.driver = new CudaDriver(this.libraries.cuda);
    this.driver.init();
    const ordinal = options.device ?? 0;
    const count = this.driver.deviceCount();
    if (ordinal >= count) throw new Error(`CUDA device ${ordinal} requested but ${count} visible (CUDA_VISIBLE_DEVICES=${process.env.CUDA_VISIBLE_DEVICES ?? 'unset'})`);
    this.device = this.driver.deviceInfo(ordinal);
    this.driver.useDevice(ordinal);
    this.stream = this.driver.createStream();
    this.allocator = new CachingAllocator(this.driver);
    // VIRNUCPRO_PAGE_LOCKED_WEIGHTS=0: weights read into plain memory and copied from it (the A/B); the same bytes.
    this.pageLocked = process.env.VIRNUCPRO_PAGE_LOCKED_WEIGHTS === '0' ? undefined : new PageLockedArena(this.driver, koffiView);
    // VIRNUCPRO_PINNED_UPLOADS=1: each batch's inputs staged through page-locked buffers (copyToDevice). Off until a
    // GPU run has measured it (`NEW_ENV=VIRNUCPRO_PINNED_UPLOADS=1 bash tools/device/ab-embed.sh 2`, issue 47).
    this.pinnedUploads = process.env.VIRNUCPRO_PINNED_UPLOADS === '1' ? new PageLockedArena(this.driver, koffiView, PINNED_UPLOAD_BLOCK_BYTES) : undefined;
    this.precision = options.precision ?? defaultPrecision;
    // FP8 tensor cores came with Ada (sm_89) and Hopper (sm_90): on an older GPU every FP8 GEMM would fall back to
    // bf16 on fp8-rounded inputs, costing accuracy for nothing.
    if (this.precision === 'fp8' && Number(this.device.arch.slice(3)) < 89) {
      throw new Error(`precision fp8 needs FP8 tensor cores (compute capability 8.9 or newer); ${this.device.name} is ${this.device.arch}: use bf16`);
    }
    this.storage = floatStorage(this.precision);
    this.fp8Bf16Layers = parseFp8Layers('VIRNUCPRO_FP8_BF16_LAYERS', process.env.VIRNUCPRO_FP8_BF16_LAYERS);
    const blockLayers = process.env.VIRNUCPRO_FP8_BF16_BLOCK_LAYERS;
    if (blockLayers !== undefined && blockLayers.trim() !== '') this.fp8Bf16BlockLayers = parseFp8Layers('VIRNUCPRO_FP8_BF16_BLOCK_LAYERS', blockLayers);
    this.fp8FastAccum = process.env.VIRNUCPRO_FP8_FAST_ACCUM !== '0';
    this.geluEpilogue = process.env.VIRNUCPRO_GELU_EPILOGUE !== '0';
    this.layerNormPerWarp = process.env.VIRNUCPRO_LN_PER_WARP !== '0';
    this.fp8RowsInRegisters = process.env.VIRNUCPRO_FP8_ROWS_IN_REGISTERS !== '0';
    this.fp8GegluFused = process.env.VIRNUCPRO_FP8_GEGLU_FUSED !== '0';
    this.fp8StaticScales = process.env.VIRNUCPRO_FP8_STATIC_SCALES !== '0';
    this.fp8StaticAttention = process.env.VIRNUCPRO_FP8_STATIC_ATTENTION !== '0';
    this.fp8NormRowsOnlyEnabled = process.env.VIRNUCPRO_FP8_NORM_ROWS_ONLY !== '0';
    this.fp8BiasCorrection = process.env.VIRNUCPRO_FP8_BIAS_CORRECTION !== '0';
    this.fp8SequenceCorrection = process.env.VIRNUCPRO_FP8_SEQUENCE_CORRECTION === '1';
    this.fp8Bf16Blocks = parseFp8Bf16Blocks(process.env.VIRNUCPRO_FP8_BF16_BLOCKS);
    const nvrtc = new Nvrtc(this.libraries.nvrtc, this.libraries.nvrtcBuiltins);
    this.nvrtcVersion = nvrtc.version;
    this.attentionMinBlocks = attentionMinBlocks(this.device.arch);
    this.kernels = new KernelLibrary(this.driver, nvrtc, new KernelCache(options.cacheDir), this.device.arch, this.libraries.includeDir);
    const workspace = { ptr: this.allocator.alloc(WORKSPACE_BYTES), bytes: WORKSPACE_BYTES };
    this.blas = new CublasLt(this.libraries.cublasLt, workspace, this.device.arch);
    this.data = new DataStorage(this, engine());
  }

  // ---- tensor storage -------------------------------------------------------------------------

  /** Storage type of float tensors written or computed now. */
  get floatStorage(): StorageType {
    return this.storage;
  }

  /**
   * Runs `fn` with float tensors stored (and so computed) in exact fp32, e.g. to build an fp32 copy of a model and
   * recompute a batch whose fp16 output overflowed. The setting holds while `fn` runs synchronously: a model's
   * forward pass queues all its kernels before its first await, and reading results back works in any setting.
   */
  withFullPrecision<T>(fn: () => T): T {
    const previous = this.storage;
    this.storage = 'f32';
    try {
      return fn();
    } finally {
      this.storage = previous;
    }
  }

  /** True while linear layers run as FP8 GEMMs: precision fp8, outside withFullPrecision. */
  get fp8Active(): boolean {
    return this.precision === 'fp8' && this.storage === 'bf16' && !this.inBf16Block;
  }

  /** How many of a model's first blocks run in bf16 under fp8 (fp8Bf16Blocks). */
  fp8Bf16BlockCount(blocks: number): number {
    return fp8Bf16BlockCount(this.fp8Bf16Blocks, blocks);
  }

  /**
   * Runs `fn`, block `block` of a model's `blocks` (@virnucpro/ops inModelBlock): in fp8, the first
   * fp8Bf16BlockCount(blocks) blocks run as in bf16 (no FP8 GEMM, no E4M3 rows), except during a calibration pass,
   * which records every layer.
   */
  withModelBlock<T>(block: number, blocks: number, fn: () => T): T {
    if (this.fp8Calibration || block >= this.fp8Bf16BlockCount(blocks)) return fn();
    if (!this.fp8Bf16BlockLayers || this.inBf16Block || this.precision !== 'fp8') return this.asBf16(fn);
    // Only these layers in bf16: the block's other GEMMs stay FP8 on the same E4M3 rows as elsewhere.
    const layers = this.fp8Bf16Layers;
    this.fp8Bf16Layers = new Set([...layers, ...this.fp8Bf16BlockLayers]);
    try {
      return fn();
    } finally {
      this.fp8Bf16Layers = layers;
    }
  }

  /**
   * Runs `fn` (@virnucpro/ops inRefinementPrecision) with every block as in bf16 under fp8: the bytes
   * `--precision bf16` gives, for a second look at the few items whose fp8 result lies near a decision. Other
   * precisions have nothing more accurate at speed: `fn` as it is.
   */
  withRefinementPrecision<T>(fn: () => T): T {
    return this.asBf16(fn);
  }

  /** `fn` with fp8's linear layers computed as in bf16 (no FP8 GEMM, no E4M3 rows); outside fp8, just `fn`. */
  private asBf16<T>(fn: () => T): T {
    if (this.inBf16Block || this.precision !== 'fp8') return fn();
    this.inBf16Block = true;
    try {
      return fn();
    } finally {
      this.inBf16Block = false;
    }
  }

  /** Whether a model should run its calibration pass (@virnucpro/ops calibrateQuantisation): fp8 with bias correction. */
  get needsQuantisationCalibration(): boolean {
    return this.fp8Active && this.fp8BiasCorrection;
  }

  /**
   * Runs `fn`, a model's forward pass over its fixed calibration set, with every linear layer in bf16 recording the
   * column sums of its input; afterwards each of those layers takes a bias corrected for its weight's E4M3 rounding
   * on that mean input (fp8CorrectedBias). A second calibration replaces the first.
   */
  async withQuantisationCalibration<T>(fn: () => Promise<T>): Promise<T> {
    const layers = this.fp8Bf16Layers;
    const recorded = new Map<DataId, { sums: DevicePtr; rows: number }>();
    this.fp8Bf16Layers = new Set(fp8LayerRoles);
    this.fp8Calibration = recorded;
    try {
      return await fn();
    } finally {
      this.fp8Calibration = undefined;
      this.fp8Bf16Layers = layers;
      for (const [dataId, sums] of recorded) {
        const d = this.data.get(dataId);
        if (!d) { this.allocator.release(sums.sums); continue; }
        this.releaseFp8Correction(d);
        d.fp8InputSums = sums;
        this.fp8CalibratedLayers++;
      }
    }
  }

  /** During a calibration pass: adds the column sums of a linear layer's input x [rows, inner] to its weight's. */
  recordFp8Input(x: TensorInfo, weight: TensorInfo): void {
    if (!this.fp8Calibration) return;
    const [rows, inner] = x.shape;
    let kept = this.fp8Calibration.get(weight.dataId);
    if (!kept) {
      kept = { sums: this.allocator.alloc(Math.max(16, inner * 4)), rows: 0 };
      this.driver.memset(kept.sums, 0, inner * 4, this.stream);
      this.fp8Calibration.set(weight.dataId, kept);
    }
    this.launch(fp8BiasCorrectionSource, 'column_sums_add', [], [Math.ceil(inner / 128), 1, 1], [128, 1, 1], 0, 'piip', this.ptr(x), rows, inner, kept.sums);
    kept.rows += rows;
  }

  /**
   * The bias an FP8 GEMM on this weight's `scales` copy takes: `bias` with the weight rounding's effect on the
   * calibration mean input taken out (fp8-bias-correction.ts), made once; `bias` itself where no calibration ran.
   */
  fp8CorrectedBias(weight: TensorInfo, bias: TensorInfo | undefined, scales: 'rows' | 'tensor'): TensorInfo | undefined {
    const d = this.tensorData(weight.dataId);
    if (!d.fp8InputSums || !this.fp8BiasCorrection) return bias;
    const kept = d.fp8Bias?.[scales];
    if (kept && kept.from === bias?.dataId) return kept.bias;
    if (kept) this.disposeData(kept.bias.dataId, true);
    const [inner, cols] = weight.shape;
    const w8 = this.fp8Weight(weight, scales);
    const corrected = this.makeOutput([cols]);
    this.launch(fp8BiasCorrectionSource, 'fp8_bias_correction', [], [Math.ceil(cols / 32), 1, 1], [32, 8, 1], 0, 'pppipfppii',
      this.ptr(weight), w8.data, w8.scales, scales === 'tensor' ? 0 : 1, d.fp8InputSums.sums, 1 / d.fp8InputSums.rows, bias ? this.ptr(bias) : 0, this.ptr(corrected), inner, cols);
    d.fp8Bias = { ...d.fp8Bias, [scales]: { from: bias?.dataId, bias: corrected } };
    return corrected;
  }

  /**
   * After an FP8 GEMM y = x·Q(W) on the weight's `scales` copy: each segment s of `cuSeqlens` takes
   * x̄_s·(Q(W) − W) off its rows of y [rows, cols], x̄_s the mean of its rows of x as the GEMM read them
   * (fp8-sequence-correction.ts).
   */
  fp8SequenceCorrect(x: TensorInfo, weight: TensorInfo, scales: 'rows' | 'tensor', cuSeqlens: TensorInfo, y: DevicePtr): void {
    const inner = x.shape[1];
    const cols = weight.shape[1];
    const segments = cuSeqlens.shape[0] - 1;
    if (segments < 1) return;
    const rows = this.fp8Rows(x);
    const cu = this.ptr(cuSeqlens);
    const bytes = bytesPerElement(this.storage);
    const means = this.allocator.alloc(Math.max(16, segments * inner * bytes));
    const corrections = this.allocator.alloc(Math.max(16, segments * cols * bytes));
    this.launch(fp8SequenceCorrectionSource, 'fp8_segment_mean', [], [Math.ceil(inner / 128), segments, 1], [128, 1, 1], 0, 'ppippi', rows.data, rows.scales, rows.perTensor ? 0 : 1, cu, means, inner);
    this.gemm(segments, inner, cols, means, this.fp8WeightError(weight, scales), corrections, undefined, undefined);
    this.launch(fp8SequenceCorrectionSource, 'subtract_segment_rows', [], [Math.ceil(cols / 128), segments, 1], [128, 1, 1], 0, 'pppi', y, corrections, cu, cols);
    this.allocator.release(means);
    this.allocator.release(corrections);
  }

  /** Q(W) − W [inner, cols] in T for the weight's `scales` copy (fp8Weight), made once. */
  private fp8WeightError(weight: TensorInfo, scales: 'rows' | 'tensor'): DevicePtr {
    const d = this.tensorData(weight.dataId);
    const [inner, cols] = weight.shape;
    const kept = d.fp8WeightError?.[scales];
    if (kept?.cols === cols) return kept.ptr; // a reshaped view of the same data gets its own (as fp8Weight)
    if (kept) this.allocator.release(kept.ptr);
    const w8 = this.fp8Weight(weight, scales);
    const error = this.allocator.alloc(Math.max(16, inner * cols * bytesPerElement(this.storage)));
    this.launch(fp8SequenceCorrectionSource, 'fp8_weight_error', [], blocks(inner * cols), [THREADS, 1, 1], 0, 'pppipii',
      this.ptr(weight), w8.data, w8.scales, scales === 'tensor' ? 0 : 1, error, inner, cols);
    d.fp8WeightError = { ...d.fp8WeightError, [scales]: { ptr: error, cols } };
    return error;
  }

  private releaseFp8Correction(d: TensorData): void {
    if (d.fp8InputSums) {
      this.allocator.release(d.fp8InputSums.sums);
      this.fp8CalibratedLayers--;
    }
    for (const kept of Object.values(d.fp8Bias ?? {})) this.disposeData(kept.bias.dataId, true);
    d.fp8InputSums = undefined;
    d.fp8Bias = undefined;
  }

  private releaseFp8WeightError(d: TensorData): void {
    for (const kept of Object.values(d.fp8WeightError ?? {})) this.allocator.release(kept.ptr);
    d.fp8WeightError = undefined;
  }

  storageOf(dtype: DataType): StorageType {
    if (dtype === 'float32') return this.floatStorage;
    if (dtype === 'int32' || dtype === 'bool') return 'i32';
    throw new Error(`the cuda backend does not store ${dtype} tensors`);
  }

  override write(values: BackendValues | null, shape: number[], dtype: DataType): DataId {
    const dataId = {};
    this.store(dataId, values, shape, dtype, 1);
    return dataId;
  }

  override move(dataId: DataId, values: BackendValues | null, shape: number[], dtype: DataType, refCount: number): void {
    this.store(dataId, values, shape, dtype, refCount);
  }

  private store(dataId: DataId, values: BackendValues | null, shape: number[], dtype: DataType, refCount: number): void {
    const size = shape.reduce((a, b) => a * b, 1);
    const storage = this.storageOf(dtype);
    const ptr = this.allocator.alloc(size * bytesPerElement(storage));
    this.data.set(dataId, { ptr, size, storage, dtype, refCount });
    if (values != null && size > 0) this.upload(ptr, values, size, storage);
  }

  private upload(ptr: DevicePtr, values: BackendValues, size: number, storage: StorageType): void {
    if (storage === 'i32') {
      const ints = values instanceof Int32Array ? values : Int32Array.from(values as ArrayLike<number>);
      this.copyToDevice(ptr, ints, size * 4);
      return;
    }
    const floats = values instanceof Float32Array ? values : Float32Array.from(values as ArrayLike<number>);
    if (storage === 'f32') {
      this.copyToDevice(ptr, floats, size * 4);
      return;
    }
    // fp32 up, converted on the GPU: the host never touches a half.
    const temp = this.allocator.alloc(size * 4);
    this.copyToDevice(temp, floats, size * 4);
    this.launch(castSource, 'f32_to_t', [], blocks(size), [THREADS, 1, 1], 0, 'ppl', temp, ptr, size);
    this.allocator.release(temp);
  }

  /**
   * Queues a copy of host bytes to the device: a DMA from page-locked memory — uploadBuffer's, or, for a JS array of
   * up to PINNED_UPLOAD_MAX_BYTES (a batch's token ids and layout), a page-locked buffer it is first copied into. A
   * copy from pageable memory waits for the stream to drain before it starts: the upload of batch N + 1's inputs
   * would wait for batch N's kernels, the host with it, and the GPU would then wait for the host.
   */
  private copyToDevice(dst: DevicePtr, src: ArrayBufferView, bytes: number): void {
    const pinned = this.pageLocked?.pointerOf(src);
    const staged = pinned === undefined && bytes <= PINNED_UPLOAD_MAX_BYTES ? this.pinnedUploads?.stage(src, bytes) : undefined;
    this.driver.copyHtoD(dst, pinned ?? staged?.ptr ?? src, bytes, this.stream);
    if (staged) this.pinnedUploads!.release(staged.buffer, this.stream);
  }

  /**
   * Host memory to read data into that is uploaded next (@virnucpro/ops uploadBuffers): page-locked, so that a tensor
   * made from it goes up as a DMA queued on the stream. Give it back with releaseUploadBuffer once its tensors are made.
   */
  uploadBuffer(bytes: number): Uint8Array {
    return this.pageLocked ? this.pageLocked.allocate(bytes) : new Uint8Array(bytes);
  }

  /** Gives an uploadBuffer back (it, or a view from its first byte); its memory is reused once the copies queued from it have run. */
  releaseUploadBuffer(view: ArrayBufferView): void {
    this.pageLocked?.release(view, this.stream);
  }

  /** No more uploadBuffers for now (a model is loaded): the page-locked memory whose buffers all came back is freed. */
  closeUploadBuffers(): void {
    this.pageLocked?.freeIdleBlocks();
  }

  /** Output tensor of the given shape, uninitialised. */
  makeOutput(shape: number[], dtype: DataType = 'float32'): TensorInfo {
    return { dataId: this.write(null, shape, dtype), shape, dtype };
  }

  /** Output tensor holding `values` (host data). */
  makeTensorInfo(shape: number[], dtype: DataType, values?: BackendValues): TensorInfo {
    return { dataId: this.write(values ?? null, shape, dtype), shape, dtype };
  }

  tensorData(dataId: DataId): TensorData {
    const d = this.data.get(dataId);
    if (!d) throw new Error('cuda backend: tensor data not found (disposed, or from another backend)');
    return d;
  }

  /** Device address of a kernel input's data; float inputs must be stored in the current storage type. */
  ptr(info: TensorInfo): DevicePtr {
    const d = this.tensorData(info.dataId);
    if (d.storage !== this.storage && d.storage !== 'i32') {
      throw new Error(`cuda backend: a tensor stored as ${d.storage} is used where kernels compute in ${this.storage} (mixing tensors made inside and outside withFullPrecision)`);
    }
    this.materialise(d);
    return d.ptr;
  }

  /** Writes a stale tensor's T data from its fp8 rows (a tensor only an FP8 GEMM was expected to read). */
  private materialise(d: TensorData): void {
    if (!d.stale || !d.fp8) return;
    d.stale = false;
    // Static rows (a layer norm's) carry their one scale first at `scales`.
    this.launchIn(d.storage, fp8Source, 'dequantize_rows', [], blocks(d.size), [THREADS, 1, 1], 0, 'ppplii', d.fp8.data, d.fp8.scales, d.ptr, d.size, d.fp8.cols, d.fp8.perTensor ? 0 : 1);
  }

  // ---- fp8 --------------------------------------------------------------------------------------

  /** Gives the tensor (rows × cols) fp8 rows to be written by the kernel about to run, and returns them: with one
   * scale per row, or the static scale at `perTensorScale` (not owned by the rows). */
  attachFp8(info: TensorInfo, rows: number, cols: number, source: Fp8Rows['source'], perTensorScale?: DevicePtr): Fp8Rows {
    const d = this.tensorData(info.dataId);
    if (d.fp8) this.releaseFp8(d.fp8);
    const data = this.allocator.alloc(Math.max(16, rows * cols));
    d.fp8 = perTensorScale === undefined
      ? { data, scales: this.allocator.alloc(Math.max(16, rows * 4)), cols, source }
      : { data, scales: perTensorScale, cols, source, perTensor: true };
    return d.fp8;
  }

  /** Marks the tensor's T data as not written: its fp8 rows hold its values (see materialise). */
  markStale(info: TensorInfo): void {
    this.tensorData(info.dataId).stale = true;
  }

  /** Where the tensor's fp8 rows came from, if it has any of `cols` columns. */
  fp8SourceOf(info: TensorInfo, cols: number): Fp8Rows['source'] | undefined {
    const fp8 = this.tensorData(info.dataId).fp8;
    return fp8 && fp8.cols === cols ? fp8.source : undefined;
  }

  /** The tensor [rows, cols] as fp8 rows: those its producer wrote, else one quantisation pass (kept with the tensor).
   * `perRow`: rows with a scale each, re-quantised by a pass when the producer wrote static ones (keeping their source). */
  fp8Rows(info: TensorInfo, perRow = false): Fp8Rows {
    const [rows, cols] = info.shape;
    const d = this.tensorData(info.dataId);
    if (d.fp8 && d.fp8.cols === cols && !(perRow && d.fp8.perTensor)) return d.fp8;
    const source = d.fp8 && d.fp8.cols === cols ? d.fp8.source : 'pass';
    const x = this.ptr(info);
    const fp8 = this.attachFp8(info, rows, cols, source);
    const { kernel, block } = quantizeRowsLaunch(cols, elementsPerWord(this.storage), { gelu: false, inRegisters: this.fp8RowsInRegisters });
    this.launch(fp8Source, kernel, [], [rows, 1, 1], block, 0, 'pppippp', x, fp8.data, fp8.scales, cols, 0, 0, 0);
    return fp8;
  }

  /** The weight [inner, cols] as E4M3 [cols, inner] with one scale per output channel (`rows` scales: the GEMM's
   * outer-vector mode) or one for all (`tensor`), quantised on first use and kept. */
  fp8Weight(info: TensorInfo, scales: 'rows' | 'tensor' = 'rows'): Fp8Operand & { cols: number } {
    const d = this.tensorData(info.dataId);
    const [inner, cols] = info.shape;
    const field = scales === 'tensor' ? 'fp8WeightTensor' : 'fp8Weight';
    const kept = d[field];
    if (kept?.cols === cols) return kept; // a reshaped view of the same data gets its own copy
    if (kept) this.releaseFp8(kept);
    const w = this.ptr(info);
    const q = { data: this.allocator.alloc(Math.max(16, inner * cols)), scales: this.allocator.alloc(Math.max(16, cols * 4)), cols };
    this.launch(fp8Source, 'weight_column_scales', [], [Math.ceil(cols / 32), 1, 1], [32, 8, 1], 0, 'ppii', w, q.scales, inner, cols);
    if (scales === 'tensor') {
      const one = this.allocator.alloc(16);
      this.launch(fp8Source, 'max_of', [], [1, 1, 1], [256, 1, 1], 0, 'pip', q.scales, cols, one);
      this.allocator.release(q.scales);
      q.scales = one;
    }
    this.launch(fp8Source, 'weight_quantize_transposed', [], [Math.ceil(cols / 32), Math.ceil(inner / 32), 1], [32, 8, 1], 0, 'pppiii', w, q.scales, q.data, inner, cols, scales === 'tensor' ? 0 : 1);
    d[field] = q;
    return q;
  }

  /** fp8: a layer norm's [static scale, 2-norm bound] from its gamma and beta (fp8-static-scales.ts), made once. */
  fp8NormBounds(gamma: TensorInfo, beta: TensorInfo): DevicePtr {
    const d = this.tensorData(gamma.dataId);
    if (d.fp8NormBounds?.beta === beta.dataId) return d.fp8NormBounds.ptr;
    if (d.fp8NormBounds) this.allocator.release(d.fp8NormBounds.ptr);
    const ptr = this.allocator.alloc(16);
    this.launch(fp8Source, 'layer_norm_fp8_bounds', [], [1, 1, 1], [256, 1, 1], 0, 'ppip', this.ptr(gamma), this.ptr(beta), gamma.shape[0], ptr);
    const serial = ++this.fp8BoundsMade;
    this.fp8BoundsSerials.set(ptr, serial);
    d.fp8NormBounds = { beta: beta.dataId, ptr, serial };
    return ptr;
  }

  /** fp8: [bound, scale, 1/scale] of a static E4M3 output scale from the weight W, the bias b and the bounds of
   * the input rows (fp8NormBounds), W read with its per-tensor scale: `gelu`, GELU(x·W + b) (geluFp8OutputScale);
   * `attention`, packed attention on [q | k | v] = x·W + b (attentionFp8OutputScale). Made once per weight and input. */
  fp8OutputScales(weight: TensorInfo, bias: TensorInfo | undefined, inputBounds: DevicePtr, use: Fp8OutputUse): DevicePtr {
    const d = this.tensorData(weight.dataId);
    const boundsSerial = this.fp8BoundsSerials.get(inputBounds) ?? 0;
    const kept = d.fp8OutputScales?.[use];
    if (kept && kept.boundsSerial === boundsSerial && kept.bias === bias?.dataId) return kept.ptr;
    if (kept) this.allocator.release(kept.ptr);
    const [inner, cols] = weight.shape;
    const w8 = this.fp8Weight(weight, 'tensor');
    const bounds = this.allocator.alloc(Math.max(16, cols * 4));
    const ptr = this.allocator.alloc(16);
    this.launch(fp8Source, 'linear_fp8_column_bounds', [], [Math.ceil(cols / 32), 1, 1], [32, 8, 1], 0, 'pppppii', this.ptr(weight), bias ? this.ptr(bias) : 0, w8.scales, inputBounds, bounds, inner, cols);
    // The attention output's bound: the largest of the value columns, qkv's last third.
    const [first, count] = use === 'attention' ? [(2 * cols) / 3, cols / 3] : [0, cols];
    this.launch(fp8Source, 'max_of', [], [1, 1, 1], [256, 1, 1], 0, 'pip', bounds + first * 4, count, ptr);
    const [factor, floor] = use === 'attention' ? [attentionOutputMargin, 0] : [1, geluNegativeBound];
    this.launch(fp8Source, 'fp8_output_scales', [], [1, 1, 1], [1, 1, 1], 0, 'pff', ptr, factor, floor);
    this.allocator.release(bounds);
    d.fp8OutputScales = { ...d.fp8OutputScales, [use]: { boundsSerial, bias: bias?.dataId, ptr } };
    return ptr;
  }

  /** fp8: records that a linear layer on static rows made `output`, so that a later kernel (packed attention) can
   * take a static scale of it (fp8OutputScales). */
  setFp8StaticProducer(output: TensorInfo, weight: TensorInfo, bias: TensorInfo | undefined, inputBounds: DevicePtr): void {
    this.tensorData(output.dataId).fp8StaticProducer = { weight, bias, inputBounds };
  }

  /** fp8: the static scales ([bound, scale, 1/scale]) of packed attention's output on `qkv`, where a linear layer on
   * static rows made qkv; else undefined (the attention output then gets a quantisation pass of its own). */
  fp8AttentionScales(qkv: TensorInfo): DevicePtr | undefined {
    const producer = this.tensorData(qkv.dataId).fp8StaticProducer;
    if (!producer || !this.fp8StaticAttention || producer.weight.shape[1] % 3 !== 0) return undefined;
    return this.fp8OutputScales(producer.weight, producer.bias, producer.inputBounds, 'attention');
  }

  /** How GEMM algorithms are chosen (see GemmAlgoChoice); benchmarks switch it at run time for the A/B. */
  get gemmAlgoChoice(): GemmAlgoChoice {
    return this.blas.algoChoice;
  }

  set gemmAlgoChoice(choice: GemmAlgoChoice) {
    this.blas.algoChoice = choice;
  }

  /** Weight shapes whose pinned GEMM algorithm is a measured configuration (gemm-algo-table.ts). */
  get tunedGemms(): ReadonlySet<string> {
    return this.blas.tuned;
  }

  /** GEMM plans whose row count the weight shape's pinned algorithm could not serve (not batch-invariant). */
  get unpinnedGemms(): ReadonlySet<string> {
    return this.blas.unpinned;
  }

  /** The GEMM mode table of the accumulation mode in force. */
  private get fp8Gemms(): Map<string, Fp8GemmMode | 'bf16'> {
    return this.fp8GemmTables[this.fp8FastAccum ? 'fast' : 'exact'];
  }

  /**
   * Y = X·W (+bias) (+residual) as an FP8 GEMM (see CublasLt.matmulFp8), in the best mode cuBLASLt accepts for the
   * shape. What the mode leaves out (Fp8GemmMode) our epilogue kernel does, unless `callerFinishes`: then the caller
   * applies it in a kernel it runs anyway (fc1's GELU). With `gelu` (and geluEpilogue on), GELU rides in cuBLASLt's
   * epilogue after the scales and the bias where the fused mode takes it (`gelu: true` in the answer); else the
   * caller applies it. Undefined when there is no FP8 algorithm for the shape: the caller runs the bf16 GEMM.
   */
  gemmFp8(rows: number, inner: number, cols: number, x: Fp8Operand, w: Fp8Operand, y: DevicePtr, bias: DevicePtr | undefined, residual: DevicePtr | undefined, callerFinishes = false, gelu = false): { mode: Fp8GemmMode; gelu: boolean } | undefined {
    const shape = { rows, inner, cols, bias: bias !== undefined, storage: this.storage };
    const key = `${rows}:${inner}:${cols}:${bias !== undefined}:${residual !== undefined}`;
    const table = this.fp8Gemms;
    const known = table.get(key);
    if (known === 'bf16') return undefined;
    const run = (mode: Fp8GemmMode, withGelu = false) => this.blas.matmulFp8(mode, { ...shape, gelu: withGelu }, x, w, y, bias, residual, this.stream, this.fp8FastAccum);
    // The fused mode with GELU, when asked and cuBLASLt takes it (remembered per shape: a refusal is asked once).
    const geluKey = `${key}:${this.fp8FastAccum}`;
    const tryGelu = gelu && this.geluEpilogue && this.fp8GeluFused.get(geluKey) !== false && (known === undefined || known === 'fused');
    const label = `gemm-fp8 ${inner}→${cols}${residual !== undefined ? ' +residual' : ''}`;
    if (tryGelu) {
      const ok = this.profiler ? this.profiler.around(`${label} +gelu`, () => run('fused', true)) : run('fused', true);
      this.fp8GeluFused.set(geluKey, ok);
      if (ok) {
        if (known === undefined) table.set(key, 'fused');
        return { mode: 'fused', gelu: true };
      }
    }
    let mode = known;
    if (mode) {
      const chosen = mode;
      const ok = this.profiler ? this.profiler.around(label, () => run(chosen)) : run(chosen);
      if (!ok) throw new Error(`cuBLASLt refused an FP8 GEMM (${key}, ${mode}) it had accepted before`);
    } else {
      mode = fp8GemmModes.find((m) => run(m));
      table.set(key, mode ?? 'bf16');
      if (!mode) return undefined;
    }
    if (mode !== 'fused' && !callerFinishes) {
      const scales = mode === 'unscaled';
      const vec = elementsPerWord(this.storage);
      const args = [y, scales ? x.scales : 0, scales ? w.scales : 0, bias ?? 0, residual ?? 0] as const;
      if (cols % vec === 0) this.launch(fp8Source, 'fp8_epilogue_vec', [], [rows, Math.ceil(cols / vec / 128), 1], [128, 1, 1], 0, 'pppppi', ...args, cols);
      else this.launch(fp8Source, 'fp8_epilogue', [], blocks(rows * cols), [THREADS, 1, 1], 0, 'pppppli', ...args, rows * cols, cols);
    }
    return { mode, gelu: false };
  }

  /**
   * Y = X·W (+bias) (+residual) (+GELU) as an FP8 GEMM with per-tensor scales (x: static rows, w: fp8Weight(…,
   * 'tensor')), everything in cuBLASLt's epilogue; with `out`, Y is written as E4M3 there instead of to `y`.
   * Undefined when cuBLASLt refuses it (remembered per shape): the caller takes the per-row path.
   */
  gemmFp8Tensor(rows: number, inner: number, cols: number, x: Fp8Operand, w: Fp8Operand, y: DevicePtr, bias: DevicePtr | undefined, residual: DevicePtr | undefined, gelu: boolean, out?: Fp8Output): { mode: Fp8GemmMode; gelu: boolean } | undefined {
    const key = `${rows}:${inner}:${cols}:${bias !== undefined}:${residual !== undefined}`;
    const refusalKey = `${key}:${gelu}:${out !== undefined}:${this.fp8FastAccum}`;
    if (this.fp8TensorRefused.has(refusalKey)) return undefined;
    const shape = { rows, inner, cols, bias: bias !== undefined, storage: this.storage, gelu, fp8Scales: 'tensor' as const, fp8Out: out !== undefined };
    const run = () => this.blas.matmulFp8('fused', shape, x, w, y, bias, residual, this.stream, this.fp8FastAccum, out);
    const label = `gemm-fp8 ${inner}→${cols}${residual !== undefined ? ' +residual' : ''}${gelu ? ' +gelu' : ''} tensor${out ? '→e4m3' : ''}`;
    if (!(this.profiler ? this.profiler.around(label, run) : run())) {
      this.fp8TensorRefused.add(refusalKey);
      return undefined;
    }
    this.fp8TensorGemms.set(key, out ? 'tensor→e4m3' : 'tensor');
    return { mode: 'fused', gelu };
  }

  private releaseFp8(fp8: Fp8Operand & { perTensor?: boolean }): void {
    this.allocator.release(fp8.data);
    if (!fp8.perTensor) this.allocator.release(fp8.scales);
  }

  override refCount(dataId: DataId): number {
    return this.data.has(dataId) ? this.data.get(dataId).refCount : 0;
  }

  override incRef(dataId: DataId): void {
    this.data.get(dataId).refCount++;
  }

  override numDataIds(): number {
    return this.data.numDataIds();
  }

  override disposeData(dataId: DataId, force = false): boolean {
    if (!this.data.has(dataId)) return true;
    const d = this.data.get(dataId);
    d.refCount--;
    if (!force && d.refCount > 0) return false;
    this.allocator.release(d.ptr);
    if (d.fp8) this.releaseFp8(d.fp8);
    if (d.fp8Weight) this.releaseFp8(d.fp8Weight);
    if (d.fp8WeightTensor) this.releaseFp8(d.fp8WeightTensor);
    if (d.fp8NormBounds) this.allocator.release(d.fp8NormBounds.ptr);
    for (const kept of Object.values(d.fp8OutputScales ?? {})) this.allocator.release(kept.ptr);
    this.releaseFp8Correction(d);
    this.releaseFp8WeightError(d);
    this.data.delete(dataId);
    return true;
  }

  disposeIntermediateTensorInfo(info: TensorInfo): void {
    this.disposeData(info.dataId);
  }

  override readSync(dataId: DataId): BackendValues {
    const d = this.tensorData(dataId);
    this.materialise(d);
    const host = d.storage === 'i32' ? new Int32Array(d.size) : new Float32Array(d.size);
    if (d.size === 0) return this.hostValues(host, d.dtype);
    const src = this.asFloat32OrInt(d);
    // A device-to-pageable copy returns only when the copy (and all work queued before it) has finished.
    this.driver.copyDtoH(host, src.ptr, d.size * 4, this.stream);
    this.driver.synchronize(this.stream);
    src.release();
    return this.hostValues(host, d.dtype);
  }

  override async read(dataId: DataId): Promise<BackendValues> {
    const d = this.tensorData(dataId);
    this.materialise(d);
    const host = d.storage === 'i32' ? new Int32Array(d.size) : new Float32Array(d.size);
    await this.readStaged(d, host);
    return this.hostValues(host, d.dtype);
  }

  /**
   * A float32 tensor's values, read into the start of an array from `allocate` (@virnucpro/ops readFloats: a caller
   * that hands the same arrays out again spares the allocation and collection of a new one per read).
   */
  async readInto(dataId: DataId, allocate: (floats: number) => Float32Array): Promise<Float32Array> {
    const d = this.tensorData(dataId);
    if (d.dtype !== 'float32') throw new Error(`readInto reads float32 tensors (this one is ${d.dtype})`);
    this.materialise(d);
    const given = allocate(d.size);
    if (given.length < d.size) throw new Error(`readInto: the array given holds ${given.length} values, the tensor ${d.size}`);
    const host = given.length === d.size ? given : given.subarray(0, d.size);
    await this.readStaged(d, host);
    return host;
  }

  /** The tensor's values as fp32 / int32 into `host` (d.size of them): through a staging buffer, the thread free meanwhile. */
  private async readStaged(d: TensorData, host: Float32Array | Int32Array): Promise<void> {
    const bytes = d.size * 4;
    if (bytes === 0) return;
    const src = this.asFloat32OrInt(d);
    const stage = this.stagingBuffer(bytes);
    this.driver.copyDtoH(stage.ptr, src.ptr, bytes, this.stream);
    src.release();
    await this.whenDone(); // a failure leaves the staging buffer busy: the copy may not have ended
    new Uint8Array(host.buffer, host.byteOffset, bytes).set(new Uint8Array(koffiView(stage.ptr, bytes)));
    stage.busy = false;
  }

  /** Resolves once all work queued so far on the stream has finished, polling an event (the JS thread stays free). */
  async whenDone(): Promise<void> {
    const event = this.driver.createEvent();
    this.driver.record(event, this.stream);
    try {
      let wait = 0;
      while (!this.driver.eventDone(event)) {
        await new Promise((resolve) => (wait < 20 ? setImmediate(resolve) : setTimeout(resolve, 1)));
        wait++;
      }
      const trace = hostTrace();
      if (trace && this.driver.streamDone(this.stream)) trace.streamDrained();
    } finally {
      this.driver.destroyEvent(event);
    }
  }

  private hostValues(host: Float32Array | Int32Array, dtype: DataType): BackendValues {
    return dtype === 'bool' ? Uint8Array.from(host) : host;
  }

  /** The tensor's data as fp32/int32 on the device (a converted copy for 16-bit storage). */
  private asFloat32OrInt(d: TensorData): { ptr: DevicePtr; release(): void } {
    if (d.storage === 'f32' || d.storage === 'i32') return { ptr: d.ptr, release() {} };
    const temp = this.allocator.alloc(d.size * 4);
    this.launchIn(d.storage, castSource, 't_to_f32', [], blocks(d.size), [THREADS, 1, 1], 0, 'ppl', d.ptr, temp, d.size);
    return { ptr: temp, release: () => this.allocator.release(temp) };
  }

  private stagingBuffer(bytes: number): { ptr: bigint; bytes: number; busy: boolean } {
    let stage = this.staging.find((s) => !s.busy && s.bytes >= bytes);
    if (!stage) {
      const size = Math.max(bytes, 2 ** 20);
      stage = { ptr: this.driver.mallocHost(size), bytes: size, busy: false };
      this.staging.push(stage);
    }
    stage.busy = true;
    return stage;
  }

  /** A small constant array on the device (e.g. ALiBi slopes), uploaded once per distinct content. */
  constantFloats(values: readonly number[]): DevicePtr {
    const key = values.join(',');
    let ptr = this.constants.get(key);
    if (ptr === undefined) {
      ptr = this.allocator.alloc(values.length * 4);
      this.driver.copyHtoD(ptr, Float32Array.from(values), values.length * 4, this.stream);
      this.constants.set(key, ptr);
    }
    return ptr;
  }

  // ---- kernels ---------------------------------------------------------------------------------

  /** Launches `kernel` of `source`, compiled for this backend's storage type plus `defines`. */
  launch(source: CudaSource, kernel: string, defines: readonly string[], grid: [number, number, number], block: [number, number, number], sharedBytes: number, signature: ArgSignature, ...args: number[]): void {
    this.launchIn(this.storage, source, kernel, defines, grid, block, sharedBytes, signature, ...args);
  }

  private launchIn(storage: StorageType, source: CudaSource, kernel: string, defines: readonly string[], grid: [number, number, number], block: [number, number, number], sharedBytes: number, signature: ArgSignature, ...args: number[]): void {
    const fn = this.kernels.get(source, kernel, [storageDefine(storage), ...defines]);
    if (sharedBytes > 48 * 1024) this.kernels.allowShared(fn, sharedBytes);
    const run = () => this.kernels.launch(fn, grid, block, sharedBytes, this.stream, signature, ...args);
    if (this.profiler) this.profiler.around(kernel, run);
    else run();
  }

  /** Y = X·W (+bias) (+residual) (+GELU in the epilogue, fp16/bf16 only) through cuBLASLt (see CublasLt.matmul). */
  gemm(rows: number, inner: number, cols: number, x: DevicePtr, w: DevicePtr, y: DevicePtr, bias: DevicePtr | undefined, residual: DevicePtr | undefined, gelu = false): void {
    const run = () => this.blas.matmul({ rows, inner, cols, bias: bias !== undefined, storage: this.storage, gelu }, x, w, y, bias, residual, this.stream);
    if (this.profiler) this.profiler.around(`gemm ${inner}→${cols}${residual !== undefined ? ' +residual' : ''}${gelu ? ' +gelu' : ''}`, run);
    else run();
  }

  /**
   * Starts collecting how busy this GPU is (the driver's own utilisation samples through NVML, read every
   * `intervalMs`); false when NVML is not available. `utilizationTotals()` returns the samples so far.
   */
  startUtilizationSampling(intervalMs = 1000): boolean {
    if (!this.utilization) {
      const read = nvmlUtilizationReader(this.libraries.cuda, this.device.ordinal);
      if (!read) return false;
      this.utilization = new GpuUtilizationSampler(read);
    }
    this.utilization.start(intervalMs);
    return true;
  }

  utilizationTotals(): UtilizationTotals | undefined {
    return this.utilization?.current;
  }

  /** Starts timing every kernel launch (CUDA events); `stopProfile()` returns GPU time per kernel. */
  startProfile(): void {
    this.profiler = new KernelProfiler(this.driver, this.stream);
  }

  stopProfile(): KernelTime[] {
    const summary = this.profiler?.summary() ?? [];
    this.profiler = undefined;
    return summary;
  }

  /** What a run report should say about this backend. */
  describe(): CudaBackendDescription {
    return {
      device: this.device.name,
      arch: this.device.arch,
      driverCudaVersion: this.device.driverCudaVersion,
      nvrtcVersion: this.nvrtcVersion,
      cublasLtVersion: this.blas.version,
      precision: this.precision,
      libraries: { cuda: this.libraries.cuda, cublasLt: this.libraries.cublasLt, nvrtc: this.libraries.nvrtc, includeDir: this.libraries.includeDir },
      ...(this.precision === 'fp8'
        ? { fp8: { gemms: Object.fromEntries(this.fp8Gemms), bf16Layers: [...this.fp8Bf16Layers], staticScales: this.fp8StaticScales, staticAttention: this.fp8StaticScales && this.fp8StaticAttention, normRowsOnly: this.fp8StaticScales && this.fp8NormRowsOnly, biasCorrectedLayers: this.fp8BiasCorrection ? this.fp8CalibratedLayers : 0, sequenceCorrection: this.fp8SequenceCorrection, bf16Blocks: describeFp8Bf16Blocks(this.fp8Bf16Blocks), bf16BlockLayers: this.fp8Bf16BlockLayers ? [...this.fp8Bf16BlockLayers] : 'all', tensorGemms: Object.fromEntries(this.fp8TensorGemms) } }
        : {}),
    };
  }

  // ---- KernelBackend bookkeeping ---------------------------------------------------------------

  override memory(): { unreliable: boolean; numBytesInGPU: number; numBytesInGPUAllocated: number; peakBytesInGPU: number } {
    const s = this.allocator.stats();
    return { unreliable: false, numBytesInGPU: s.inUseBytes, numBytesInGPUAllocated: s.inUseBytes + s.cachedBytes, peakBytesInGPU: s.peakInUseBytes };
  }

  override timerAvailable(): boolean {
    return true;
  }

  /** GPU time of the work `f` queues (CUDA events around it). */
  override async time(f: () => void): Promise<BackendTimingInfo> {
    const start = this.driver.createEvent(true);
    const end = this.driver.createEvent(true);
    this.driver.record(start, this.stream);
    f();
    this.driver.record(end, this.stream);
    await this.whenDone();
    const kernelMs = this.driver.elapsedMs(start, end);
    this.driver.destroyEvent(start);
    this.driver.destroyEvent(end);
    return { kernelMs };
  }

  override floatPrecision(): 16 | 32 {
    return 32;
  }

  override dispose(): void {
    this.utilization?.stop();
    this.driver.synchronize(this.stream);
    hostTrace()?.stop();
  }
}

function parseFp8Layers(name: string, value: string | undefined): Set<Fp8LayerRole> {
  const roles = (value ?? '').split(',').map((r) => r.trim()).filter((r) => r !== '');
  for (const r of roles) {
    if (!(fp8LayerRoles as readonly string[]).includes(r)) throw new Error(`${name}: '${r}' is not one of ${fp8LayerRoles.join(', ')}`);
  }
  return new Set(roles as Fp8LayerRole[]);
}

/** Grid of 1-D blocks covering n elements. */
export function blocks(n: number, threads = THREADS): [number, number, number] {
  return [Math.max(1, Math.ceil(n / threads)), 1, 1];
}

function koffiView(ptr: bigint, bytes: number): ArrayBuffer {
  return koffi().view(ptr, bytes);
}
