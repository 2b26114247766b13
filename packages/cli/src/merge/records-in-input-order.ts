import { UsageError } from '../errors.js';
import { readShardRecords, SHARD_RECORDS_FILE, type ShardRecord } from '../sharding/shard-records-file.js';
import type { ShardSummary } from '../sharding/shard-summary.js';

/** What this needs of a shard folder: where it is, its part and its record count. */
export interface ShardRecordSource {
  dir: string;
  summary: { shard: ShardSummary };
}

const name = (s: ShardRecordSource) => `${s.dir} (shard ${s.summary.shard.index}/${s.summary.shard.count})`;

/**
 * The input's records 1..inputRecords in order, each with the shard (its position in `shards`) that holds it,
 * read from the shards' record lists side by side (each in input order): memory is one record a shard, not the
 * lists (a list of every record held in memory grew the merge with the input). Refuses, as a UsageError naming
 * the shard, a list that is not one, a record listed out of order or beyond the input, a record in two shards or
 * in none, and a list whose length is not the one its run summary counts.
 */
export async function* recordsInInputOrder(shards: readonly ShardRecordSource[], inputRecords: number): AsyncGenerator<{ shard: number; record: ShardRecord }> {
  const lists = shards.map((shard) => readShardRecords(shard.dir));
  try {
    const listed = new Array<number>(shards.length).fill(0);
    const previous = new Array<number>(shards.length).fill(0);
    const next = async (s: number): Promise<ShardRecord | undefined> => {
      let step: IteratorResult<ShardRecord>;
      try {
        step = await lists[s].next();
      } catch (err) {
        throw new UsageError(`merge: ${name(shards[s])}: cannot read ${SHARD_RECORDS_FILE}: ${(err as Error).message}`);
      }
      if (step.done) return undefined;
      const { inputRecord } = step.value;
      if (inputRecord > inputRecords || inputRecord <= previous[s]) {
        throw new UsageError(`merge: ${name(shards[s])}: ${SHARD_RECORDS_FILE} lists input record ${inputRecord} out of order or beyond the input's ${inputRecords} records`);
      }
      previous[s] = inputRecord;
      listed[s]++;
      return step.value;
    };
    const heads: (ShardRecord | undefined)[] = [];
    for (let s = 0; s < shards.length; s++) heads.push(await next(s));
    for (let inputRecord = 1; inputRecord <= inputRecords; inputRecord++) {
      let holder = -1;
      for (let s = 0; s < shards.length; s++) {
        if (heads[s]?.inputRecord !== inputRecord) continue;
        if (holder >= 0) throw new UsageError(`merge: input record ${inputRecord} is in two shards: ${name(shards[holder])} and ${name(shards[s])}`);
        holder = s;
      }
      if (holder < 0) throw new UsageError(`merge: input record ${inputRecord} is in no shard: the shards do not cover the input`);
      yield { shard: holder, record: heads[holder]! };
      heads[holder] = await next(holder);
    }
    shards.forEach((shard, s) => {
      if (listed[s] !== shard.summary.shard.records) {
        throw new UsageError(`merge: ${name(shard)}: ${SHARD_RECORDS_FILE} lists ${listed[s]} records, its run summary ${shard.summary.shard.records}`);
      }
    });
  } finally {
    for (const list of lists) await list.return(undefined);
  }
}
