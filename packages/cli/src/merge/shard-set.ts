import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describeIdentityDifferences, canonicalJson } from '@virnucpro/checkpoint';
import { UsageError } from '../errors.js';
import type { RunSummary } from '../progress/run-summary.js';
import { RUN_SUMMARY_FILE } from '../pipeline/run-predict.js';
import { readShardRecords, SHARD_RECORDS_FILE, type ShardRecord } from '../sharding/shard-records-file.js';
import type { ShardSummary } from '../sharding/shard-summary.js';

/** A finished shard folder: its run summary (with the shard section) and its records in output order. */
export interface LoadedShard {
  dir: string;
  summary: RunSummary & { shard: ShardSummary };
  records: ShardRecord[];
}

/** Shards that together hold every record of one input exactly once, by part number (1..N). */
export interface ShardSet {
  shards: LoadedShard[];
  /** For each input record (0-based), the position in `shards` of the shard that holds it. */
  owner: Uint32Array;
}

const name = (s: { dir: string; summary: { shard: ShardSummary } }) => `${s.dir} (shard ${s.summary.shard.index}/${s.summary.shard.count})`;

/**
 * Reads the shard folders and checks that they cover one input exactly once: every folder a finished
 * `predict --shard`, one split (same N), one input (fingerprint), same models and options, each part 1..N
 * present once, and their record lists partition the input's records. Any failure is one UsageError line.
 */
export async function loadShardSet(dirs: string[]): Promise<ShardSet> {
  const loaded = dirs.map(readShardSummary);
  const first = loaded[0];
  for (const other of loaded.slice(1)) {
    const [a, b] = [first.summary.shard, other.summary.shard];
    if (a.count !== b.count) throw new UsageError(`merge: shards of different splits: ${name(first)} and ${name(other)}`);
    if (a.inputFingerprint !== b.inputFingerprint) {
      throw new UsageError(`merge: shards of different inputs: ${name(first)} was made from ${a.inputFingerprint}, ${name(other)} from ${b.inputFingerprint}`);
    }
    if (canonicalJson(a.settings) !== canonicalJson(b.settings)) {
      const differences = describeIdentityDifferences(a.settings, b.settings).join('; ');
      throw new UsageError(`merge: shards made with different models or options: ${name(other)} vs ${name(first)}: ${differences}`);
    }
  }
  const byIndex = new Map<number, (typeof loaded)[number]>();
  for (const shard of loaded) {
    const twin = byIndex.get(shard.summary.shard.index);
    if (twin) throw new UsageError(`merge: shard ${shard.summary.shard.index}/${shard.summary.shard.count} given twice: ${twin.dir} and ${shard.dir}`);
    byIndex.set(shard.summary.shard.index, shard);
  }
  const count = first.summary.shard.count;
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((k) => !byIndex.has(k));
  if (missing.length > 0) {
    const list = missing.map((k) => `${k}/${count}`).join(', ');
    throw new UsageError(`merge: ${missing.length === 1 ? 'shard' : 'shards'} ${list} missing: give all ${count} shard folders of the run`);
  }

  const ordered = [...byIndex.keys()].sort((a, b) => a - b).map((k) => byIndex.get(k)!);
  const shards: LoadedShard[] = [];
  for (const shard of ordered) shards.push({ ...shard, records: await readRecords(shard) });
  return { shards, owner: ownersOf(shards, first.summary.shard.inputRecords) };
}

function readShardSummary(dir: string): { dir: string; summary: RunSummary & { shard: ShardSummary } } {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`merge: ${dir}: no such folder`);
  const path = join(dir, RUN_SUMMARY_FILE);
  if (!existsSync(path)) throw new UsageError(`merge: ${dir} is not a finished shard: it has no ${RUN_SUMMARY_FILE} (rerun its predict --shard job)`);
  let summary: RunSummary;
  try {
    summary = JSON.parse(readFileSync(path, 'utf8')) as RunSummary;
  } catch (err) {
    throw new UsageError(`merge: ${path}: not readable JSON (${(err as Error).message})`);
  }
  if (!summary.shard) throw new UsageError(`merge: ${dir} is not a shard: its ${RUN_SUMMARY_FILE} has no shard section (made without --shard K/N)`);
  if (summary.status !== 'complete') throw new UsageError(`merge: ${dir}: the shard run did not complete (status ${summary.status})`);
  return { dir, summary: summary as RunSummary & { shard: ShardSummary } };
}

async function readRecords(shard: { dir: string; summary: RunSummary & { shard: ShardSummary } }): Promise<ShardRecord[]> {
  const records = await readShardRecords(shard.dir).catch((err: Error) => {
    throw new UsageError(`merge: ${name(shard)}: cannot read ${SHARD_RECORDS_FILE}: ${err.message}`);
  });
  if (records.length !== shard.summary.shard.records) {
    throw new UsageError(`merge: ${name(shard)}: ${SHARD_RECORDS_FILE} lists ${records.length} records, its run summary ${shard.summary.shard.records}`);
  }
  return records;
}

/** Which shard holds each input record; refuses a record held twice or by none, or listed out of input order. */
function ownersOf(shards: LoadedShard[], inputRecords: number): Uint32Array {
  const none = 0xffffffff;
  const owner = new Uint32Array(inputRecords).fill(none);
  shards.forEach((shard, s) => {
    let previous = 0;
    for (const { inputRecord } of shard.records) {
      if (inputRecord > inputRecords || inputRecord <= previous) {
        throw new UsageError(`merge: ${name(shard)}: ${SHARD_RECORDS_FILE} lists input record ${inputRecord} out of order or beyond the input's ${inputRecords} records`);
      }
      const holder = owner[inputRecord - 1];
      if (holder !== none) throw new UsageError(`merge: input record ${inputRecord} is in two shards: ${name(shards[holder])} and ${name(shard)}`);
      owner[inputRecord - 1] = s;
      previous = inputRecord;
    }
  });
  const lost = owner.indexOf(none);
  if (lost >= 0) throw new UsageError(`merge: input record ${lost + 1} is in no shard: the shards do not cover the input`);
  return owner;
}
