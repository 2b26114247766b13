export { openCheckpoint, CheckpointSession, type CheckpointOptions, type ResumeReport } from './session.js';
export { RestoredShards } from './restored-shards.js';
export { writeShard, readShardIndex, readShardVectors, SHARD_FORMAT, type EmbeddingRecord, type ShardIndex } from './shard-file.js';
export { readManifest, writeManifest, MANIFEST_FILE, MANIFEST_FORMAT, MANIFEST_VERSION, type Manifest, type ShardRecord } from './manifest.js';
export { canonicalJson, fingerprintFiles, fingerprintValue, sha256File } from './fingerprint.js';
export { CheckpointMismatchError } from './errors.js';
export { describeIdentityDifferences } from './identity-diff.js';
