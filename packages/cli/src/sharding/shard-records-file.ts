import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { writeFileAtomicSync } from '@virnucpro/atomic-file';

/** A shard's records, in the order of its outputs, with their place in the whole input (what merge restores). */
export const SHARD_RECORDS_FILE = 'shard_records.tsv';
const HEADER = 'input_record\tSequence_ID';

export interface ShardRecord {
  /** 1-based position of the record in the whole input. */
  inputRecord: number;
  id: string;
}

export function writeShardRecords(outDir: string, records: readonly ShardRecord[]): void {
  const lines = [HEADER, ...records.map((r) => `${r.inputRecord}\t${r.id}`)];
  writeFileAtomicSync(join(outDir, SHARD_RECORDS_FILE), lines.join('\n') + '\n');
}

/** Reads a shard's record list; throws an Error naming the file and line when it is not one. */
export async function readShardRecords(shardDir: string): Promise<ShardRecord[]> {
  const path = join(shardDir, SHARD_RECORDS_FILE);
  const records: ShardRecord[] = [];
  let line = 0;
  for await (const text of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    line++;
    if (line === 1) {
      if (text !== HEADER) throw new Error(`${path}: not a shard record list (first line '${text}')`);
      continue;
    }
    const tab = text.indexOf('\t');
    const inputRecord = Number(text.slice(0, tab));
    if (tab < 0 || !Number.isSafeInteger(inputRecord) || inputRecord < 1) throw new Error(`${path}: line ${line} is not '<record number>\\t<id>'`);
    records.push({ inputRecord, id: text.slice(tab + 1) });
  }
  return records;
}
