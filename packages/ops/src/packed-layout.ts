import * as tf from '@tensorflow/tfjs-core';

/**
 * Segments whose attention runs as one batched matmul: all the segments of one length, so nothing is padded.
 * Why one length and not "similar lengths padded to the longest": a segment's attention must be the same
 * computation whatever its neighbours (batch invariance, docs/architecture.md). Padded to its group's longest
 * member, a segment came out up to 6e-7 apart in different batches on wasm (XNNPACK's softmax groups a row's sum by
 * the row's length); padded to a length of its own (≤ 25 % more) it was invariant but 1.2–1.9× slower on the demo
 * models than this (attention dominates on wasm, and padding breaks the no-gather fast path).
 */
export interface AttentionGroup {
  /** Segment indices (into `lengths`) in this group, in batch order. */
  segments: number[];
  /** Length of every segment of the group. */
  length: number;
  /** First row of the group in the concatenated group outputs (Σ S·L of the groups before it). */
  start: number;
  /** int32 [S_g·L_g]: packed row of each row of the group, segment after segment. */
  readonly rows: tf.Tensor1D;
}

/**
 * Segment boundaries of a packed token stream: several sequences concatenated into one [N, ...]
 * tensor with no padding. Per-token ops run on the packed rows directly; attention uses the index
 * tensors here to gather the rows of each group of equal-length segments into [S_g, L] and back. Owns its
 * tensors: dispose().
 */
export class PackedLayout {
  readonly lengths: readonly number[];
  /** Row where each segment starts, plus the total at the end (cu_seqlens). */
  readonly offsets: readonly number[];
  readonly totalTokens: number;
  readonly numSegments: number;
  readonly maxLength: number;
  /** Position of each packed row inside its own segment (0 at each segment start). */
  readonly positions: Int32Array;
  /** Segment of each packed row. */
  readonly segmentOf: Int32Array;
  readonly groups: readonly AttentionGroup[];
  /** Row of each packed token in the concatenated group outputs. */
  private readonly slotOfRow: Int32Array;
  private tensors = new Map<string, tf.Tensor>();
  private alibiCache = new Map<string, tf.Tensor4D>();
  private disposed = false;

  constructor(lengths: readonly number[]) {
    if (lengths.length === 0) throw new Error('packedLayout needs at least one segment');
    for (const n of lengths) {
      if (!Number.isInteger(n) || n < 1) throw new Error(`packedLayout: segment length must be a positive integer, got ${n}`);
    }
    this.lengths = [...lengths];
    const offsets = [0];
    for (const n of lengths) offsets.push(offsets[offsets.length - 1] + n);
    this.offsets = offsets;
    this.totalTokens = offsets[offsets.length - 1];
    this.numSegments = lengths.length;
    this.maxLength = Math.max(...lengths);
    this.positions = new Int32Array(this.totalTokens);
    this.segmentOf = new Int32Array(this.totalTokens);
    lengths.forEach((n, s) => {
      for (let t = 0; t < n; t++) {
        this.positions[offsets[s] + t] = t;
        this.segmentOf[offsets[s] + t] = s;
      }
    });
    let base = 0;
    this.slotOfRow = new Int32Array(this.totalTokens);
    this.groups = planGroups(this.lengths).map((segments, g) => {
      const length = this.lengths[segments[0]];
      segments.forEach((s, slot) => {
        for (let t = 0; t < length; t++) this.slotOfRow[offsets[s] + t] = base + slot * length + t;
      });
      const start = base;
      base += segments.length * length;
      const layout = this;
      return { segments, length, start, get rows() { return layout.groupRows(g, segments, length); } };
    });
  }

  /** True when the groups, concatenated, are the packed rows in order (one length, or lengths already grouped): no gathers needed. */
  get isIdentity(): boolean {
    return this.slotOfRow.every((slot, row) => slot === row);
  }

  /** int32 [N]: row of each packed token in the concatenated group outputs. */
  get fromGroups(): tf.Tensor1D {
    return this.cached('fromGroups', () => tf.tensor1d(this.slotOfRow, 'int32'));
  }

  /** int32 [S+1]: `offsets` (cu_seqlens) as a tensor, the segment input of the attention and pooling kernels. */
  get offsetsTensor(): tf.Tensor1D {
    return this.cached('offsets', () => tf.tensor1d(Int32Array.from(this.offsets), 'int32'));
  }

  /** int32 [N]: `positions` as a tensor (e.g. to gather rotary tables). */
  get positionsTensor(): tf.Tensor1D {
    return this.cached('positions', () => tf.tensor1d(this.positions, 'int32'));
  }

  /**
   * float32 [1, H, L, L]: ALiBi bias −slope_h·|i−j| for length L, cached per length and
   * slope values (so a fresh array with the same slopes, as each kernel call passes, reuses the tensor).
   */
  alibiBias(slopes: ArrayLike<number>, L = this.maxLength): tf.Tensor4D {
    this.assertLive();
    const key = `${L}:${Array.prototype.join.call(slopes, ',')}`;
    let bias = this.alibiCache.get(key);
    if (!bias) {
      const H = slopes.length;
      const values = new Float32Array(H * L * L);
      for (let h = 0; h < H; h++) {
        for (let i = 0; i < L; i++) {
          for (let j = 0; j < L; j++) values[(h * L + i) * L + j] = -slopes[h] * Math.abs(i - j);
        }
      }
      bias = tf.keep(tf.tensor4d(values, [1, H, L, L]));
      this.alibiCache.set(key, bias);
      this.tensors.set(`alibi:${key}`, bias);
    }
    return bias;
  }

  dispose(): void {
    for (const t of this.tensors.values()) t.dispose();
    this.tensors.clear();
    this.alibiCache.clear();
    this.disposed = true;
  }

  private groupRows(g: number, segments: number[], length: number): tf.Tensor1D {
    return this.cached(`rows:${g}`, () => {
      const index = new Int32Array(segments.length * length);
      segments.forEach((s, slot) => {
        for (let t = 0; t < length; t++) index[slot * length + t] = this.offsets[s] + t;
      });
      return tf.tensor1d(index, 'int32');
    });
  }

  private cached<T extends tf.Tensor>(key: string, make: () => T): T {
    this.assertLive();
    let t = this.tensors.get(key) as T | undefined;
    if (!t) {
      // keep(): the layout may be first used inside a caller's tf.tidy, which must not free it.
      t = tf.keep(make());
      this.tensors.set(key, t);
    }
    return t;
  }

  private assertLive(): void {
    if (this.disposed) throw new Error('PackedLayout used after dispose()');
  }
}

/** Groups segment indices by length, longest first; each group in batch order. */
function planGroups(lengths: readonly number[]): number[][] {
  const groups = new Map<number, number[]>();
  lengths.forEach((n, s) => {
    const group = groups.get(n);
    if (group) group.push(s);
    else groups.set(n, [s]);
  });
  return [...groups.entries()].sort((a, b) => b[0] - a[0]).map(([, segments]) => segments);
}

/** Builds the layout of a packed stream of segments with the given token counts. */
export function packedLayout(lengths: readonly number[]): PackedLayout {
  return new PackedLayout(lengths);
}
