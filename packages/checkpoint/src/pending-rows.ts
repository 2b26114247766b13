// Results appended to a checkpoint wait for their shard (10,000 by default). Held as records — an object, the
// item's id and a copy of its vector as a Float32Array of its own (an ArrayBuffer and a backing store each) — they
// were the main process's largest crop of per-frame objects that outlive a few young-generation collections: each
// was promoted to the old space and died there once its shard was written (issue 46, docs/benchmarks/scaling.md).
// Here a row is its index, its id's hash and its vector copied into blocks of up to 4 MiB: what the shard stores,
// and no object a row.

import { idHash } from './id-hash.js';

/**
 * Bytes of vectors a block holds, at most (a block holds one row at least, and no more rows than a shard): a shard of
 * scores is one block; one of --save-embeddings' 3,330-value rows, blocks of 314 rows, so that the last block's unused
 * rows cost at most this much.
 */
const BLOCK_BYTES = 1 << 22;

export class PendingRows {
  private readonly blockRows: number;
  private readonly vectorBlocks: Float32Array[] = [];
  private readonly indexBlocks: Float64Array[] = [];
  private readonly hashBlocks: Uint32Array[] = [];
  /** Rows held. */
  count = 0;

  /** `dim` values a row; `expected` rows at most before a shard is written (sizes the blocks). */
  constructor(
    readonly dim: number,
    expected: number,
  ) {
    this.blockRows = Math.max(1, Math.min(Math.floor(BLOCK_BYTES / (4 * dim)), expected));
  }

  /** Copies the row in (the caller's vector may be a view into a buffer that gets reused). */
  push(index: number, id: string, vector: Float32Array): void {
    const block = Math.floor(this.count / this.blockRows);
    const row = this.count % this.blockRows;
    if (row === 0) {
      this.vectorBlocks.push(new Float32Array(this.blockRows * this.dim));
      this.indexBlocks.push(new Float64Array(this.blockRows));
      this.hashBlocks.push(new Uint32Array(this.blockRows));
    }
    this.vectorBlocks[block].set(vector, row * this.dim);
    this.indexBlocks[block][row] = index;
    this.hashBlocks[block][row] = idHash(id);
    this.count++;
  }

  index(i: number): number {
    return this.indexBlocks[Math.floor(i / this.blockRows)][i % this.blockRows];
  }

  idHash(i: number): number {
    return this.hashBlocks[Math.floor(i / this.blockRows)][i % this.blockRows];
  }

  /** Row `i`'s vector (a view, valid while this object is). */
  vector(i: number): Float32Array {
    const row = i % this.blockRows;
    return this.vectorBlocks[Math.floor(i / this.blockRows)].subarray(row * this.dim, (row + 1) * this.dim);
  }

  /** Row numbers in order of their indices. */
  byIndex(): Uint32Array {
    const order = new Uint32Array(this.count);
    for (let i = 0; i < order.length; i++) order[i] = i;
    return order.sort((a, b) => this.index(a) - this.index(b));
  }
}
