import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describeIdentityDifferences, canonicalJson } from '@virnucpro/checkpoint';
import { UsageError } from '../errors.js';
import type { RunSummary } from '../progress/run-summary.js';
import { RUN_SUMMARY_FILE } from '../pipeline/run-predict.js';
import type { ShardSummary } from '../sharding/shard-summary.js';
import { recordsInInputOrder } from './records-in-input-order.js';

/** A finished shard folder: its run summary (with the shard section); its records stay in its shard_records.tsv. */
export interface LoadedShard {
  dir: string;
  summary: RunSummary & { shard: ShardSummary };
}

/**
 * Shards that together hold every record of one input exactly once, by part number (1..N). Which shard holds
 * which record is read again, in input order, when the outputs are merged (recordsInInputOrder).
 */
export interface ShardSet {
  shards: LoadedShard[];
  /** Records of the whole input. */
  inputRecords: number;
}

const name = (s: { dir: string; summary: { shard: ShardSummary } }) => `${s.dir} (shard ${s.summary.shard.index}/${s.summary.shard.count})`;

/**
 * Reads the shard folders and checks that they cover one input exactly once: every folder a finished
 * `predict --shard`, one split (same N), one input (fingerprint), same models and options, each part 1..N
 * present once, and their record lists partition the input's records (read through once here, so that a bad list
 * is refused before anything is written). Any failure is one UsageError line.
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

  const shards = [...byIndex.keys()].sort((a, b) => a - b).map((k) => byIndex.get(k)!);
  const inputRecords = first.summary.shard.inputRecords;
  // The record lists read through once (one record a shard in memory): a bad one is refused before anything is written.
  for await (const _record of recordsInInputOrder(shards, inputRecords)) continue;
  return { shards, inputRecords };
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
