export { openCheckpoint, CheckpointSession, type CheckpointOptions, type ResumeReport } from './session.js';
export { RestoredShards } from './restored-shards.js';
export { readShardIndex, type EmbeddingRecord, type ShardIndex } from './shard-file.js';
export { idHash } from './id-hash.js';
export { readManifest, type Manifest, type ShardRecord } from './manifest.js';
export { canonicalJson, fingerprintFiles } from './fingerprint.js';
export { CheckpointMismatchError } from './errors.js';
export { describeIdentityDifferences } from './identity-diff.js';
