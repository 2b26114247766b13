import { UsageError } from '../errors.js';

/** `--shard K/N`: the K-th (1-based) of N parts of the input. */
export interface ShardSpec {
  index: number;
  count: number;
}

/** Parses `K/N` (1 ≤ K ≤ N); anything else is a usage error naming the flag. */
export function parseShardSpec(text: string, where = '--shard'): ShardSpec {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = match ? Number(match[1]) : NaN;
  const count = match ? Number(match[2]) : NaN;
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(count) && index >= 1 && index <= count)) {
    throw new UsageError(`${where}: expected K/N with 1 ≤ K ≤ N (e.g. 2/8: the second of eight parts), got '${text}'`);
  }
  return { index, count };
}

export function formatShardSpec(shard: ShardSpec): string {
  return `${shard.index}/${shard.count}`;
}
