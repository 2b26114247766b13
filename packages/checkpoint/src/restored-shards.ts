import { join } from 'node:path';
import { idHash } from './id-hash.js';
import { readShardVectors } from './shard-file.js';
import type { ShardRecord } from './manifest.js';

/**
 * Index → (shard, row) of every restored vector. Two Int32Arrays instead of a Map: a million
 * restored items cost 8 MB, and vectors stay on disk until asked for (a small LRU of shards).
 */
export class RestoredShards {
  private shardOf = new Int32Array(0).fill(-1);
  private rowOf = new Int32Array(0);
  private readonly cache = new Map<number, Promise<{ idHashes: Uint32Array; dim: number; embeddings: Float32Array }>>();
  count = 0;

  constructor(
    private readonly dir: string,
    private readonly shards: ShardRecord[] = [],
    private readonly cacheSize = 4,
  ) {}

  /** Registers the rows of shard number `shard` (position in `shards`). Returns false on a duplicate index. */
  add(shard: number, indices: number[]): boolean {
    const max = indices.reduce((m, i) => Math.max(m, i), -1);
    if (max >= this.shardOf.length) this.grow(max + 1);
    for (const index of indices) if (this.shardOf[index] !== -1) return false;
    indices.forEach((index, row) => {
      this.shardOf[index] = shard;
      this.rowOf[index] = row;
    });
    this.count += indices.length;
    return true;
  }

  has(index: number): boolean {
    return index >= 0 && index < this.shardOf.length && this.shardOf[index] !== -1;
  }

  /**
   * Vector of a restored item, and whether it was stored for the item of id `id` (its id's hash is read with the
   * vectors, not kept in memory).
   */
  async get(index: number): Promise<{ vector: Float32Array; matches(id: string): boolean }> {
    if (!this.has(index)) throw new Error(`item #${index} is not in the checkpoint`);
    const shard = this.shardOf[index];
    const row = this.rowOf[index];
    const { idHashes, dim, embeddings } = await this.load(shard);
    const stored = idHashes[row];
    return { vector: embeddings.slice(row * dim, (row + 1) * dim), matches: (id) => idHash(id) === stored };
  }

  private load(shard: number) {
    let loaded = this.cache.get(shard);
    if (loaded) {
      this.cache.delete(shard); // re-insert: most recently used last
    } else {
      loaded = readShardVectors(join(this.dir, this.shards[shard].file));
      if (this.cache.size >= this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(shard, loaded);
    return loaded;
  }

  private grow(length: number): void {
    const shardOf = new Int32Array(Math.max(length, this.shardOf.length * 2)).fill(-1);
    shardOf.set(this.shardOf);
    const rowOf = new Int32Array(shardOf.length);
    rowOf.set(this.rowOf);
    this.shardOf = shardOf;
    this.rowOf = rowOf;
  }
}
