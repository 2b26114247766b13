import type { RegionOptions } from '@virnucpro/consensus';
import { describeModel } from '../pipeline/model-identity.js';
import type { ShardSelection } from './shard-plan.js';

/**
 * The `shard` section of a shard's run_summary.json: which part of which input it holds, and what its numbers
 * depend on. `virnucpro merge` refuses shard sets that differ in any of it (except the part number).
 */
export interface ShardSummary {
  /** K of `--shard K/N`. */
  index: number;
  /** N of `--shard K/N`. */
  count: number;
  /** sha256 of the whole input (the checkpoint's fingerprint), not of this shard's records. */
  inputFingerprint: string;
  /** Records in the whole input, and in this shard (listed in SHARD_RECORDS_FILE) with their bases. */
  inputRecords: number;
  records: number;
  bases: number;
  settings: ShardSettings;
}

/** What the scores depend on: models (file names and sizes, as the checkpoint identifies them), chunk length, backend and precision. */
export interface ShardSettings {
  chunkLength: number;
  models: { esm: ModelIdentity; dnabert: ModelIdentity; mlp: ModelIdentity };
  backend: string;
  precision: string;
  /** How chunks were joined into viral regions (absent in shards of versions before viral_regions.tsv). */
  regions?: RegionOptions;
  /** --min-length (absent when not given). */
  minLength?: number;
}

type ModelIdentity = ReturnType<typeof describeModel>;

/** The shard section of a finished run (`result` gives the resolved backend and precision). */
export function shardSummary(
  selection: ShardSelection,
  inputFingerprint: string,
  result: { chunkLength: number; backend: string; precision: string; regions?: RegionOptions; minLength?: number },
  models: { esm: string; dnabert: string; mlp: string },
): ShardSummary {
  return {
    index: selection.spec.index,
    count: selection.spec.count,
    inputFingerprint,
    inputRecords: selection.inputRecords,
    records: selection.records,
    bases: selection.bases,
    settings: {
      chunkLength: result.chunkLength,
      models: { esm: describeModel(models.esm), dnabert: describeModel(models.dnabert), mlp: describeModel(models.mlp) },
      backend: result.backend,
      precision: result.precision,
      ...(result.regions ? { regions: result.regions } : {}),
      ...(result.minLength !== undefined ? { minLength: result.minLength } : {}),
    },
  };
}
