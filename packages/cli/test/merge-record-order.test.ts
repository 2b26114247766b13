// recordsInInputOrder: merge reads the shards' record lists side by side instead of holding them (issue 46), and
// still refuses lists that do not partition the input, naming the shard.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordsInInputOrder, type ShardRecordSource } from '../src/merge/records-in-input-order.js';
import { ShardRecordsWriter, SHARD_RECORDS_FILE } from '../src/sharding/shard-records-file.js';
import type { ShardSummary } from '../src/sharding/shard-summary.js';

const root = mkdtempSync(join(tmpdir(), 'merge-record-order-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;

/** A shard folder whose record list holds `inputRecords` (ids r<n>), as predict --shard writes it. */
async function shard(index: number, count: number, inputRecords: number[], summaryRecords = inputRecords.length): Promise<ShardRecordSource> {
  const dir = join(root, `shard-${++folders}`);
  mkdirSync(dir);
  const writer = await ShardRecordsWriter.create(dir);
  for (const inputRecord of inputRecords) writer.add({ inputRecord, id: `r${inputRecord}` });
  await writer.publish();
  return { dir, summary: { shard: { index, count, records: summaryRecords } as ShardSummary } };
}

async function listAll(shards: ShardRecordSource[], inputRecords: number) {
  const out: string[] = [];
  for await (const { shard, record } of recordsInInputOrder(shards, inputRecords)) out.push(`${shard}:${record.id}`);
  return out;
}

describe('recordsInInputOrder', () => {
  it('gives every input record once, in input order, with the shard that holds it', async () => {
    const a = await shard(1, 2, [1, 4, 5]);
    const b = await shard(2, 2, [2, 3, 6]);
    expect(await listAll([a, b], 6)).toEqual(['0:r1', '1:r2', '1:r3', '0:r4', '0:r5', '1:r6']);
  });

  it('a list of many records streams through (written in blocks as predict adds them)', async () => {
    const n = 60_000; // > one 1 MiB block of the writer
    const a = await shard(1, 2, Array.from({ length: n }, (_, i) => 2 * i + 1));
    const b = await shard(2, 2, Array.from({ length: n }, (_, i) => 2 * i + 2));
    let expected = 1;
    let misplaced = 0;
    for await (const { shard: s, record } of recordsInInputOrder([a, b], 2 * n)) {
      if (record.inputRecord !== expected || s !== (expected - 1) % 2 || record.id !== `r${expected}`) misplaced++;
      expected++;
    }
    expect(misplaced).toBe(0);
    expect(expected).toBe(2 * n + 1);
  });

  it('refuses a record in two shards, one in none, one out of order or beyond the input, a wrong count', async () => {
    await expect(listAll([await shard(1, 2, [1, 2]), await shard(2, 2, [2, 3])], 3)).rejects.toThrow(/input record 2 is in two shards: .*shard 1\/2.* and .*shard 2\/2/);
    await expect(listAll([await shard(1, 2, [1]), await shard(2, 2, [3])], 3)).rejects.toThrow(/input record 2 is in no shard/);
    await expect(listAll([await shard(1, 2, [1, 3, 2]), await shard(2, 2, [2])], 3)).rejects.toThrow(/shard 1\/2\): shard_records\.tsv lists input record 2 out of order/);
    await expect(listAll([await shard(1, 2, [1, 2, 9]), await shard(2, 2, [3])], 3)).rejects.toThrow(/lists input record 9 out of order or beyond the input's 3 records/);
    await expect(listAll([await shard(1, 2, [1, 2], 3), await shard(2, 2, [3])], 3)).rejects.toThrow(/lists 2 records, its run summary 3/);
  });

  it('refuses a file that is not a record list, naming it', async () => {
    const bad = await shard(1, 1, [1]);
    writeFileSync(join(bad.dir, SHARD_RECORDS_FILE), 'something else\n1\tr1\n');
    await expect(listAll([bad], 1)).rejects.toThrow(/cannot read shard_records\.tsv: .*not a shard record list/);
  });
});
