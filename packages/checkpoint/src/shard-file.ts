import { openSafetensors, writeSafetensors } from '@virnucpro/weights';
import type { PendingRows } from './pending-rows.js';

/** One completed embedding, as stored in a shard row. */
export interface EmbeddingRecord {
  index: number;
  id: string;
  vector: Float32Array;
}

/** Version 2: ids as 32-bit hashes (`id_hashes`), not a JSON list: 20 bytes a row of two scores. */
export const SHARD_FORMAT = 'virnucpro-result-shard-2';

/**
 * Writes the pending rows as a safetensors file, rows sorted by input index: `embeddings` float32 [n, dim], `indices`
 * int64 [n], `id_hashes` uint32 [n] (id-hash.ts); metadata `format`, `dim`. Readable from Python:
 * `safetensors.numpy.load_file` + `safe_open(...).metadata()`.
 */
export async function writeShard(path: string, pending: PendingRows): Promise<void> {
  const { dim, count } = pending;
  const embeddings = new Float32Array(count * dim);
  const indices = new BigInt64Array(count);
  const idHashes = new Uint32Array(count);
  const order = pending.byIndex();
  for (let row = 0; row < count; row++) {
    const i = order[row];
    embeddings.set(pending.vector(i), row * dim);
    indices[row] = BigInt(pending.index(i));
    idHashes[row] = pending.idHash(i);
  }
  await writeSafetensors(
    path,
    {
      embeddings: { dtype: 'float32', shape: [count, dim], data: embeddings },
      indices: { dtype: 'int64', shape: [count], data: indices },
      id_hashes: { dtype: 'uint32', shape: [count], data: idHashes },
    },
    { format: SHARD_FORMAT, dim: String(dim) },
  );
}

export interface ShardIndex {
  indices: number[];
  dim: number;
}

/** Reads a shard's indices (not its vectors) and checks its shape. */
export async function readShardIndex(path: string): Promise<ShardIndex> {
  const file = await openSafetensors(path);
  try {
    if (file.metadata.format !== SHARD_FORMAT) throw new Error(`not a result shard of this version (format '${file.metadata.format}', expected '${SHARD_FORMAT}')`);
    const embeddings = file.entries.get('embeddings');
    const indicesEntry = file.entries.get('indices');
    const hashes = file.entries.get('id_hashes');
    if (!embeddings || embeddings.dtype !== 'float32' || embeddings.shape.length !== 2) throw new Error('no float32 [n, dim] "embeddings" tensor');
    if (!indicesEntry || indicesEntry.dtype !== 'int64' || indicesEntry.shape.length !== 1) throw new Error('no int64 [n] "indices" tensor');
    if (!hashes || hashes.dtype !== 'uint32' || hashes.shape.length !== 1) throw new Error('no uint32 [n] "id_hashes" tensor');
    const [rows, dim] = embeddings.shape;
    if (indicesEntry.shape[0] !== rows || hashes.shape[0] !== rows) {
      throw new Error(`row counts disagree: embeddings ${rows}, indices ${indicesEntry.shape[0]}, id_hashes ${hashes.shape[0]}`);
    }
    const indices = Array.from((await file.readTensor('indices')).data as BigInt64Array, Number);
    return { indices, dim };
  } finally {
    await file.close();
  }
}

/** Reads a shard's vectors and id hashes (rows in the file's order). */
export async function readShardVectors(path: string): Promise<{ idHashes: Uint32Array; dim: number; embeddings: Float32Array }> {
  const file = await openSafetensors(path);
  try {
    const tensor = await file.readTensor('embeddings');
    return { idHashes: (await file.readTensor('id_hashes')).data as Uint32Array, dim: tensor.shape[1], embeddings: tensor.data as Float32Array };
  } finally {
    await file.close();
  }
}
