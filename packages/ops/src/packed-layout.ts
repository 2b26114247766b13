import * as tf from '@tensorflow/tfjs-core';

/** Additive attention bias for keys outside a segment (finite: avoids inf−inf NaNs in any backend). */
export const maskedScore = -1e9;

/**
 * Segment boundaries of a packed token stream: several sequences concatenated into one [N, ...]
 * tensor with no padding. Per-token ops run on the packed rows directly; attention uses the index
 * tensors here to gather rows into a padded [S, Lmax] layout and back. Owns its tensors: dispose().
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

  private tensors = new Map<string, tf.Tensor>();
  private alibiCache = new WeakMap<Float32Array, tf.Tensor4D>();
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
  }

  /** True when the stream is one segment, so padded and packed layouts coincide. */
  get isSingleSegment(): boolean {
    return this.numSegments === 1;
  }

  /** int32 [S·Lmax]: packed row for each padded slot (padding slots point at row 0 and are masked). */
  get toPadded(): tf.Tensor1D {
    return this.cached('toPadded', () => {
      const index = new Int32Array(this.numSegments * this.maxLength);
      this.lengths.forEach((n, s) => {
        for (let t = 0; t < n; t++) index[s * this.maxLength + t] = this.offsets[s] + t;
      });
      return tf.tensor1d(index, 'int32');
    });
  }

  /** int32 [N]: padded slot (s·Lmax + t) of each packed row. */
  get fromPadded(): tf.Tensor1D {
    return this.cached('fromPadded', () => {
      const index = new Int32Array(this.totalTokens);
      for (let row = 0; row < this.totalTokens; row++) index[row] = this.segmentOf[row] * this.maxLength + this.positions[row];
      return tf.tensor1d(index, 'int32');
    });
  }

  /** float32 [S, 1, 1, Lmax]: 0 for real keys, a large negative number for padding keys. */
  get keyMask(): tf.Tensor4D {
    return this.cached('keyMask', () => {
      const mask = new Float32Array(this.numSegments * this.maxLength);
      this.lengths.forEach((n, s) => mask.fill(maskedScore, s * this.maxLength + n, (s + 1) * this.maxLength));
      return tf.tensor4d(mask, [this.numSegments, 1, 1, this.maxLength]);
    });
  }

  /** int32 [N]: `positions` as a tensor (e.g. to gather rotary tables). */
  get positionsTensor(): tf.Tensor1D {
    return this.cached('positions', () => tf.tensor1d(this.positions, 'int32'));
  }

  /**
   * float32 [S, N]: row s averages the rows of segment s, leaving out `skipStart` rows at its start
   * and `skipEnd` at its end (e.g. BOS/EOS). A matmul with it pools all segments at once.
   */
  meanMatrix(skipStart = 0, skipEnd = 0): tf.Tensor2D {
    return this.cached(`mean:${skipStart}:${skipEnd}`, () => {
      const matrix = new Float32Array(this.numSegments * this.totalTokens);
      this.lengths.forEach((n, s) => {
        const count = n - skipStart - skipEnd;
        if (count < 1) throw new Error(`segment ${s} of length ${n} has no rows left after skipping ${skipStart}+${skipEnd}`);
        const rowStart = s * this.totalTokens + this.offsets[s];
        matrix.fill(1 / count, rowStart + skipStart, rowStart + n - skipEnd);
      });
      return tf.tensor2d(matrix, [this.numSegments, this.totalTokens]);
    });
  }

  /** float32 [1, H, Lmax, Lmax]: ALiBi bias −slope_h·|i−j|, cached per slopes array. */
  alibiBias(slopes: Float32Array): tf.Tensor4D {
    this.assertLive();
    let bias = this.alibiCache.get(slopes);
    if (!bias) {
      const L = this.maxLength;
      const H = slopes.length;
      const values = new Float32Array(H * L * L);
      for (let h = 0; h < H; h++) {
        for (let i = 0; i < L; i++) {
          for (let j = 0; j < L; j++) values[(h * L + i) * L + j] = -slopes[h] * Math.abs(i - j);
        }
      }
      bias = tf.keep(tf.tensor4d(values, [1, H, L, L]));
      this.alibiCache.set(slopes, bias);
      this.tensors.set(`alibi:${this.tensors.size}`, bias);
    }
    return bias;
  }

  dispose(): void {
    for (const t of this.tensors.values()) t.dispose();
    this.tensors.clear();
    this.alibiCache = new WeakMap();
    this.disposed = true;
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

/** Builds the layout of a packed stream of segments with the given token counts. */
export function packedLayout(lengths: readonly number[]): PackedLayout {
  return new PackedLayout(lengths);
}
