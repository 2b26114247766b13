import * as tf from '@tensorflow/tfjs-core';

/** Additive attention bias for keys outside a segment (finite: avoids inf−inf NaNs in any backend). */
export const maskedScore = -1e9;

/**
 * The length a segment of `length` tokens is padded to for attention: a function of its own length only
 * (batch invariance, docs/architecture.md), never of its neighbours. Up to 8 tokens: the length itself; then
 * rounded up to a quarter of its power of two (9 → 10, 17 → 20, 100 → 112, 130 → 160), so at most 25 % of
 * padding per side (≤ 1.56× the score work) and four padded lengths per octave (few attention groups per batch).
 * Why padding must not follow the neighbours: the wasm backend's softmax and matmuls group a row's sums by
 * its padded length (SIMD lanes, tail loops), so a segment padded to its group's longest came out up to
 * 6e-7 apart in different batches.
 */
export function attentionLength(length: number): number {
  if (length <= 8) return length;
  const step = 2 ** (Math.floor(Math.log2(length)) - 2);
  return Math.ceil(length / step) * step;
}

/** Segments whose attention runs as one padded batched matmul: those of the same `attentionLength`. */
export interface AttentionGroup {
  /** Segment indices (into `lengths`) in this group, in batch order. */
  segments: number[];
  /** Padded length of the group: `attentionLength` of each of its segments. */
  maxLength: number;
  /** int32 [S_g·L_g]: packed row of each padded slot (padding slots point at their segment's first row and are masked). */
  readonly toPadded: tf.Tensor1D;
  /** float32 [S_g, 1, 1, L_g] additive key mask, or null when every segment of the group has length L_g. */
  readonly keyMask: tf.Tensor4D | null;
}

/**
 * Segment boundaries of a packed token stream: several sequences concatenated into one [N, ...]
 * tensor with no padding. Per-token ops run on the packed rows directly; attention uses the index
 * tensors here to gather rows into padded [S_g, L_g] groups of similar length and back. Owns its
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
  /** Rows of the concatenated padded group outputs (Σ S_g·L_g). */
  readonly paddedRows: number;

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
    const plan = planGroups(this.lengths);
    let base = 0;
    const groupBase: number[] = [];
    this.groups = plan.map((segments, g) => {
      groupBase.push(base);
      const L = attentionLength(this.lengths[segments[0]]);
      base += segments.length * L;
      const layout = this;
      return {
        segments,
        maxLength: L,
        get toPadded() { return layout.groupIndex(g, segments, L); },
        get keyMask() { return layout.groupMask(g, segments, L); },
      };
    });
    this.paddedRows = base;
    this.slotOfRow = new Int32Array(this.totalTokens);
    this.groups.forEach((group, g) => {
      group.segments.forEach((s, slot) => {
        for (let t = 0; t < this.lengths[s]; t++) this.slotOfRow[offsets[s] + t] = groupBase[g] + slot * group.maxLength + t;
      });
    });
  }

  private readonly slotOfRow: Int32Array;

  /** True when the padded layout is the packed layout itself (one group, no padding): no gathers needed. */
  get isIdentity(): boolean {
    return this.groups.length === 1 && this.paddedRows === this.totalTokens && this.groups[0].segments.every((s, i) => s === i);
  }

  /** int32 [N]: row of each packed token in the concatenated padded group outputs. */
  get fromPadded(): tf.Tensor1D {
    return this.cached('fromPadded', () => tf.tensor1d(this.slotOfRow, 'int32'));
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
   * float32 [1, H, L, L]: ALiBi bias −slope_h·|i−j| for padded length L, cached per padded length and
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

  private groupIndex(g: number, segments: number[], L: number): tf.Tensor1D {
    return this.cached(`toPadded:${g}`, () => {
      const index = new Int32Array(segments.length * L);
      segments.forEach((s, slot) => {
        index.fill(this.offsets[s], slot * L, (slot + 1) * L);
        for (let t = 0; t < this.lengths[s]; t++) index[slot * L + t] = this.offsets[s] + t;
      });
      return tf.tensor1d(index, 'int32');
    });
  }

  private groupMask(g: number, segments: number[], L: number): tf.Tensor4D | null {
    if (segments.every((s) => this.lengths[s] === L)) return null;
    return this.cached(`keyMask:${g}`, () => {
      const mask = new Float32Array(segments.length * L);
      segments.forEach((s, slot) => mask.fill(maskedScore, slot * L + this.lengths[s], (slot + 1) * L));
      return tf.tensor4d(mask, [segments.length, 1, 1, L]);
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

/** Groups segment indices by `attentionLength`, longest first; each group in batch order. */
function planGroups(lengths: readonly number[]): number[][] {
  const groups = new Map<number, number[]>();
  lengths.forEach((n, s) => {
    const L = attentionLength(n);
    const group = groups.get(L);
    if (group) group.push(s);
    else groups.set(L, [s]);
  });
  return [...groups.entries()].sort((a, b) => b[0] - a[0]).map(([, segments]) => segments);
}

/** Builds the layout of a packed stream of segments with the given token counts. */
export function packedLayout(lengths: readonly number[]): PackedLayout {
  return new PackedLayout(lengths);
}
