// Sharded `pytorch_model.bin.index.json` checkpoints (`pytorch_model-00001-of-00002.bin`, …).
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { TensorData } from '../tensor-data.js';
import { readTorchCheckpoint } from './read-torch-checkpoint.js';

export async function readShardedTorch(
  indexPath: string,
  flatten: (root: unknown, source: string) => Map<string, TensorData>,
): Promise<Map<string, TensorData>> {
  const index = JSON.parse(await readFile(indexPath, 'utf8')) as { weight_map?: Record<string, string> };
  if (!index.weight_map || typeof index.weight_map !== 'object') throw new Error(`${indexPath}: expected a "weight_map" object`);
  const out = new Map<string, TensorData>();
  for (const shard of new Set(Object.values(index.weight_map))) {
    if (typeof shard !== 'string' || shard.includes('/') || shard.includes('\\')) {
      throw new Error(`${indexPath}: weight_map values must be shard file names beside the index, got ${JSON.stringify(shard)}`);
    }
    const shardPath = join(dirname(indexPath), shard);
    for (const [name, t] of flatten(await readTorchCheckpoint(shardPath), shardPath)) {
      if (out.has(name)) throw new Error(`${shardPath}: tensor "${name}" also appears in another shard`);
      out.set(name, t);
    }
  }
  return out;
}
