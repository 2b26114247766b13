import type { CpuKernelExports } from './wasm-kernels.js';

// The element-wise kernels and the attention of a range of rows, written once and run on every thread: the calling
// thread calls these functions directly, and each helper thread (row-workers.ts) runs them from their source text
// (`Function.prototype.toString`), so they must stay self-contained: no imports, no module-level names, no helpers
// but those ROW_JOBS_SOURCE declares. Every job computes each row (or each segment) from its own values alone, with
// the same code whichever thread runs it: the bytes cannot depend on the split or the thread count.
//
// Inputs and outputs are process memory (SharedArrayBuffers for the large ones, so that every thread sees them);
// a job copies its rows into its own thread's WebAssembly memory, runs the kernel there and copies the result out.

/** oneDNN's row-major sgemm on process addresses: C[M×N] = alpha·op(A)·op(B) + beta·C (op(B) = Bᵀ when transB). */
export type Sgemm = (transB: boolean, M: number, N: number, K: number, alpha: number, A: number, lda: number, B: number, ldb: number, beta: number, C: number, ldc: number) => void;

/** One thread's kernels: its WebAssembly instance used as an arena, and oneDNN's sgemm. */
export interface Lane {
  readonly kernels: CpuKernelExports;
  /** Byte offsets of regions of the given float (or int32) counts, 64-byte aligned; grows the memory to fit. */
  layout(...counts: number[]): number[];
  f32(offset: number, count: number): Float32Array;
  i32(offset: number, count: number): Int32Array;
  /** The process address of a byte offset in the module's memory (valid until the memory grows). */
  address(offset: number): number;
  readonly sgemm: Sgemm;
}

/** A Lane over a kernels instance; `bufferAddress` gives the process address of an ArrayBuffer's first byte. */
export function makeLane(kernels: CpuKernelExports, bufferAddress: (buffer: ArrayBuffer) => number, sgemm: Sgemm): Lane {
  const PAGE = 65536;
  const ARENA_BASE = PAGE; // the module's own data lives below
  const ALIGN = 64;
  let base = 0;
  let baseBuffer: ArrayBuffer | undefined;
  return {
    kernels,
    sgemm,
    layout(...counts: number[]): number[] {
      const offsets: number[] = [];
      let top = ARENA_BASE;
      for (const count of counts) {
        offsets.push(top);
        top += Math.ceil((count * 4) / ALIGN) * ALIGN;
      }
      const missing = Math.ceil(top / PAGE) - kernels.memory.buffer.byteLength / PAGE;
      if (missing > 0) kernels.memory.grow(missing);
      return offsets;
    },
    f32: (offset: number, count: number) => new Float32Array(kernels.memory.buffer, offset, count),
    i32: (offset: number, count: number) => new Int32Array(kernels.memory.buffer, offset, count),
    address(offset: number): number {
      const buffer = kernels.memory.buffer;
      if (buffer !== baseBuffer) {
        baseBuffer = buffer;
        base = bufferAddress(buffer);
      }
      return base + offset;
    },
  };
}

/** Rows [from, to) of a kernel's input and output. */
export interface RowRange {
  from: number;
  to: number;
}

export interface GegluJob extends RowRange {
  x: Float32Array; // rows × 2f
  out: Float32Array; // rows × f
  f: number;
}

/** out = gelu(x[:, :f])·x[:, f:] for rows [from, to). */
export function gegluRows(lane: Lane, job: GegluJob): void {
  const { x, out, from, to, f } = job;
  const n = to - from;
  if (n <= 0) return;
  const [xs, ys] = lane.layout(n * 2 * f, n * f);
  lane.f32(xs, n * 2 * f).set(x.subarray(from * 2 * f, to * 2 * f));
  lane.kernels.geglu(xs, ys, n, f);
  out.set(lane.f32(ys, n * f), from * f);
}

export interface LayerNormJob extends RowRange {
  x: Float32Array; // rows × d
  out: Float32Array; // rows × d
  d: number;
  gamma: Float32Array;
  beta: Float32Array;
  eps: number;
}

/** Layer norm of rows [from, to). */
export function layerNormRows(lane: Lane, job: LayerNormJob): void {
  const { x, out, from, to, d } = job;
  const n = to - from;
  if (n <= 0) return;
  const [xs, g, b] = lane.layout(n * d, d, d);
  lane.f32(xs, n * d).set(x.subarray(from * d, to * d));
  lane.f32(g, d).set(job.gamma);
  lane.f32(b, d).set(job.beta);
  lane.kernels.layerNorm(xs, xs, n, d, g, b, job.eps);
  out.set(lane.f32(xs, n * d), from * d);
}

export interface EpilogueJob extends RowRange {
  y: Float32Array; // rows × cols, the GEMM's result, replaced by the epilogue's
  cols: number;
  bias: Float32Array | null;
  residual: Float32Array | null; // rows × cols
  gelu: boolean;
}

/** y = act(y + bias) + residual for rows [from, to), in place. */
export function epilogueRows(lane: Lane, job: EpilogueJob): void {
  const { y, from, to, cols, bias, residual } = job;
  const n = to - from;
  if (n <= 0) return;
  const [ys, b, res] = lane.layout(n * cols, bias ? cols : 0, residual ? n * cols : 0);
  lane.f32(ys, n * cols).set(y.subarray(from * cols, to * cols));
  if (bias) lane.f32(b, cols).set(bias);
  if (residual) lane.f32(res, n * cols).set(residual.subarray(from * cols, to * cols));
  lane.kernels.linearEpilogue(ys, n, cols, bias ? b : 0, residual ? res : 0, job.gelu ? 1 : 0);
  y.set(lane.f32(ys, n * cols), from * cols);
}

export interface AttentionJob {
  qkv: Float32Array; // rows × 3·width (q | k | v)
  out: Float32Array; // rows × width
  width: number; // heads × head size
  heads: number;
  scale: number;
  alibiSlopes: Float32Array | null;
  /** Every segment of the pack: its first row and length, and its query rows per block of scores. */
  offsets: ArrayLike<number>;
  lengths: ArrayLike<number>;
  blockRows: ArrayLike<number>;
  /** Segments [first, last) are this job's (their rows are contiguous). */
  first: number;
  last: number;
  /** Rotary tables ([positions × head size]) and each row's position (all rows of the pack). */
  rotary: { cos: Float32Array; sinSigned: Float32Array; positions: Int32Array } | null;
}

/**
 * Attention of segments [first, last): per segment of L rows and per head, the scores are one sgemm (q·kᵀ,
 * n×hd·hd×L, read in place from the fused qkv through its leading dimension), the softmax (with ALiBi when
 * given) runs in WebAssembly SIMD over all heads' rows, and a second sgemm (P·v) writes the head's columns of the
 * output. Every call's shape is fixed by L and the head size alone, so a segment's output does not depend on the
 * rest of the batch or on the thread that computes it. With rotary tables, q and k are rotated first. Long
 * segments take their query rows in blocks of blockRows[s] (ops' queryBlockRows); with ALiBi, a segment in one
 * block gets its bias inside the softmax kernel (which takes a row's position from its place in the head's L×L
 * matrix), a block of a longer one gets it from alibiBlock first, in the same float32 arithmetic.
 */
export function attentionSegments(lane: Lane, job: AttentionJob): void {
  const { qkv, out, width, heads: H, scale, alibiSlopes, offsets, lengths, blockRows, first, last, rotary } = job;
  if (last <= first) return;
  const w3 = 3 * width;
  const hd = width / H;
  const row0 = offsets[first];
  const rows = offsets[last - 1] + lengths[last - 1] - row0;
  let scores = 0;
  for (let s = first; s < last; s++) scores = Math.max(scores, H * blockRows[s] * lengths[s]);
  const tables = rotary ? rotary.cos.length : 0;
  const [q, o, sc, c, sn, pos] = lane.layout(rows * w3, rows * width, scores, tables, tables, rotary ? rows : 0);
  lane.f32(q, rows * w3).set(qkv.subarray(row0 * w3, (row0 + rows) * w3));
  if (rotary) {
    lane.f32(c, tables).set(rotary.cos);
    lane.f32(sn, tables).set(rotary.sinSigned);
    lane.i32(pos, rows).set(rotary.positions.subarray(row0, row0 + rows));
    lane.kernels.rotaryQk(q, rows, H, hd, c, sn, pos);
  }
  const qAt = lane.address(q);
  const oAt = lane.address(o);
  const sAt = lane.address(sc);
  for (let segment = first; segment < last; segment++) {
    const L = lengths[segment];
    const local = offsets[segment] - row0;
    const rowAt = qAt + local * w3 * 4;
    const B = blockRows[segment];
    // Query rows [start, start + n) against all L keys; one block (start 0, n = L) unless the segment is long.
    for (let start = 0; start < L; start += B) {
      const n = Math.min(B, L - start);
      const queryAt = rowAt + start * w3 * 4;
      for (let h = 0; h < H; h++) {
        lane.sgemm(true, n, L, hd, scale, queryAt + h * hd * 4, w3, rowAt + (width + h * hd) * 4, w3, 0, sAt + h * n * L * 4, L);
      }
      if (alibiSlopes && n === L) for (let h = 0; h < H; h++) lane.kernels.softmaxRows(sc + h * n * L * 4, n, L, alibiSlopes[h]);
      else {
        if (alibiSlopes) alibiBlock(lane.f32(sc, H * n * L), alibiSlopes, start, n, L);
        lane.kernels.softmaxRows(sc, H * n, L, 0);
      }
      for (let h = 0; h < H; h++) {
        lane.sgemm(false, n, hd, L, 1, sAt + h * n * L * 4, L, rowAt + (2 * width + h * hd) * 4, w3, 0, oAt + ((local + start) * width + h * hd) * 4, width);
      }
    }
  }
  out.set(lane.f32(o, rows * width), row0 * width);
}

/**
 * Adds the ALiBi bias −slope_h·|i − j| to the scores of query rows i ∈ [start, start + n) of every head (laid out
 * [H, n, L]), as the softmax kernel does for a whole segment: a float32 product, then a float32 difference (the
 * Float32Array store rounds the exact double difference of two float32 values, which is the float32 difference).
 */
export function alibiBlock(scores: Float32Array, slopes: ArrayLike<number>, start: number, n: number, L: number): void {
  for (let h = 0; h < slopes.length; h++) {
    const slope = Math.fround(slopes[h]);
    for (let r = 0; r < n; r++) {
      const i = start + r;
      const row = (h * n + r) * L;
      for (let j = 0; j < L; j++) scores[row + j] -= Math.fround(slope * Math.abs(i - j));
    }
  }
}

/** The jobs a helper thread runs, by name. */
export const ROW_JOBS = { gegluRows, layerNormRows, epilogueRows, attentionSegments } as const;
export type RowJobName = keyof typeof ROW_JOBS;
/** The argument of job `N`. */
export type RowJob<N extends RowJobName> = Parameters<(typeof ROW_JOBS)[N]>[1];

/**
 * Source text that defines, on a helper thread, `makeLane` and `jobs` (ROW_JOBS by name) from these very
 * functions. The jobs are inlined as expressions (a bundler may rename their declarations); alibiBlock stays a
 * declaration, under whatever name attentionSegments' text calls it.
 */
export const ROW_JOBS_SOURCE = [
  String(alibiBlock),
  `const makeLane = (${String(makeLane)});`,
  `const jobs = { ${Object.entries(ROW_JOBS).map(([name, job]) => `${name}: (${String(job)})`).join(', ')} };`,
].join('\n');

/**
 * Contiguous ranges of `count` items, one per part (the last part the calling thread's), with about equal total
 * cost: part i ends at the first item where the running cost passes (i+1)/parts of the total. With unit costs,
 * ranges of ceil(count/parts) items.
 */
export function splitByCost(count: number, parts: number, cost: (i: number) => number): RowRange[] {
  let total = 0;
  for (let i = 0; i < count; i++) total += cost(i);
  const ranges: RowRange[] = [];
  let from = 0, acc = 0, i = 0;
  for (let p = 0; p < parts; p++) {
    const target = (total * (p + 1)) / parts;
    let to = from;
    if (p === parts - 1) to = count;
    else {
      while (i < count && acc + cost(i) / 2 <= target) acc += cost(i++);
      to = i;
    }
    ranges.push({ from, to });
    from = to;
  }
  return ranges;
}
