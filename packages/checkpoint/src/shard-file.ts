import { openSafetensors, writeSafetensors } from '@virnucpro/weights';

/** One completed embedding, as stored in a shard row. */
export interface EmbeddingRecord {
  index: number;
  id: string;
  vector: Float32Array;
}

export const SHARD_FORMAT = 'virnucpro-embedding-shard';

/**
 * Writes records as a safetensors file, rows sorted by input index:
 * `embeddings` float32 [n, dim], `indices` int64 [n]; metadata `ids` (JSON array, same order),
 * `format`, `dim`. Readable from Python: `safetensors.numpy.load_file` + `safe_open(...).metadata()`.
 */
export async function writeShard(path: string, records: EmbeddingRecord[], dim: number): Promise<void> {
  const rows = [...records].sort((a, b) => a.index - b.index);
  const embeddings = new Float32Array(rows.length * dim);
  const indices = new BigInt64Array(rows.length);
  rows.forEach((record, row) => {
    if (record.vector.length !== dim) throw new Error(`checkpoint: vector for item #${record.index} has length ${record.vector.length}, expected ${dim}`);
    embeddings.set(record.vector, row * dim);
    indices[row] = BigInt(record.index);
  });
  await writeSafetensors(
    path,
    {
      embeddings: { dtype: 'float32', shape: [rows.length, dim], data: embeddings },
      indices: { dtype: 'int64', shape: [rows.length], data: indices },
    },
    { format: SHARD_FORMAT, dim: String(dim), ids: JSON.stringify(rows.map((r) => r.id)) },
  );
}

export interface ShardIndex {
  indices: number[];
  ids: string[];
  dim: number;
}

/** Reads a shard's indices and ids (not its vectors) and checks its shape. */
export async function readShardIndex(path: string): Promise<ShardIndex> {
  const file = await openSafetensors(path);
  try {
    if (file.metadata.format !== SHARD_FORMAT) throw new Error(`not an embedding shard (format '${file.metadata.format}')`);
    const ids = JSON.parse(file.metadata.ids ?? 'null') as unknown;
    const embeddings = file.entries.get('embeddings');
    const indicesEntry = file.entries.get('indices');
    if (!embeddings || embeddings.dtype !== 'float32' || embeddings.shape.length !== 2) throw new Error('no float32 [n, dim] "embeddings" tensor');
    if (!indicesEntry || indicesEntry.dtype !== 'int64' || indicesEntry.shape.length !== 1) throw new Error('no int64 [n] "indices" tensor');
    const [rows, dim] = embeddings.shape;
    if (indicesEntry.shape[0] !== rows || !Array.isArray(ids) || ids.length !== rows) {
      throw new Error(`row counts disagree: embeddings ${rows}, indices ${indicesEntry.shape[0]}, ids ${Array.isArray(ids) ? ids.length : 'missing'}`);
    }
    const indices = Array.from((await file.readTensor('indices')).data as BigInt64Array, Number);
    return { indices, ids: ids.map(String), dim };
  } finally {
    await file.close();
  }
}

/** Reads a shard's vectors and ids (rows in the file's order). */
export async function readShardVectors(path: string): Promise<{ ids: string[]; dim: number; embeddings: Float32Array }> {
  const file = await openSafetensors(path);
  try {
    const tensor = await file.readTensor('embeddings');
    return { ids: (JSON.parse(file.metadata.ids) as unknown[]).map(String), dim: tensor.shape[1], embeddings: tensor.data as Float32Array };
  } finally {
    await file.close();
  }
}
