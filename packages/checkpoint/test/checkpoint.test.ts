import { readFile, readdir, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OutputDirNotEmptyError } from '@virnucpro/atomic-file';
import {
  CheckpointMismatchError,
  describeIdentityDifferences,
  fingerprintFiles,
  idHash,
  openCheckpoint,
  readManifest,
} from '../src/index.js';
import { DIM, record, shuffled, tempDir, vectorOf } from './helpers.js';

const MODEL = { name: 'hash-model', dim: DIM };
const INPUT = 'sha256:input-a';

async function writeRun(dir: string, indices: number[], every: number) {
  const session = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, checkpointEvery: every });
  for (const index of indices) await session.append(record(index));
  await session.close();
  return session;
}

describe('checkpoint shards and resume', () => {
  it('restores every vector with its own id after out-of-order completion', async () => {
    const dir = await tempDir();
    const order = shuffled(Array.from({ length: 53 }, (_, i) => i));
    const first = await writeRun(dir, order, 7);
    expect(first.shardsWritten).toBe(8); // 7 full shards + 4 left over

    const resumed = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, resume: true });
    expect(resumed.report).toMatchObject({ verifiedShards: 8, restoredItems: 53, droppedShards: [] });
    for (let index = 0; index < 53; index++) {
      expect(resumed.restored.has(index)).toBe(true);
      const { matches, vector } = await resumed.restored.get(index);
      expect(matches(`seq${index}`)).toBe(true);
      expect(matches(`seq${index + 1}`)).toBe(false);
      expect(Array.from(vector)).toEqual(Array.from(vectorOf(`seq${index}`)));
    }
    expect(resumed.restored.has(53)).toBe(false);
  });

  it('writes one shard of 200,000 items (no call-stack limit on shard size)', async () => {
    const dir = await tempDir();
    const count = 200_000;
    const indices = Array.from({ length: count }, (_, i) => count - 1 - i);
    await writeRun(dir, indices, count);
    const manifest = (await readManifest(dir))!;
    expect(manifest.shards.map((s) => [s.count, s.firstIndex, s.lastIndex])).toEqual([[count, 0, count - 1]]);
  });

  it('keeps rows of a shard larger than its blocks, completed out of order, each with its own vector and id', async () => {
    // The pending rows sit in blocks of up to 4 MiB of vectors (pending-rows.ts: 349 rows of 3,000 values, so three blocks here); each
    // vector is copied in from a buffer the caller overwrites next, as the pool's result rows are views into one message.
    const dir = await tempDir();
    const count = 1_000;
    const dim = 3_000;
    const wide = (index: number) => Float32Array.from({ length: dim }, (_, k) => (Math.imul(index + 1, 2654435761) ^ Math.imul(k, 40503)) / 1e6);
    const session = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, checkpointEvery: 10_000 });
    const reused = new Float32Array(dim);
    for (const index of shuffled(Array.from({ length: count }, (_, i) => i))) {
      reused.set(wide(index));
      await session.append({ index, id: `seq${index}`, vector: reused });
    }
    await session.close();
    const resumed = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, resume: true });
    expect(resumed.report).toMatchObject({ verifiedShards: 1, restoredItems: count });
    for (let index = 0; index < count; index++) {
      const { matches, vector } = await resumed.restored.get(index);
      expect(matches(`seq${index}`)).toBe(true);
      const expected = wide(index);
      expect(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).equals(Buffer.from(expected.buffer)), `item #${index}`).toBe(true);
    }
  });

  it('writes safetensors that an independent parser reads: embeddings f32 [n,dim], indices i64, id hashes u32', async () => {
    const dir = await tempDir();
    await writeRun(dir, [4, 1, 3], 10);
    const manifest = (await readManifest(dir))!;
    const bytes = await readFile(join(dir, manifest.shards[0].file));
    const headerLength = Number(bytes.readBigUInt64LE(0));
    const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8'));
    expect(header.embeddings).toMatchObject({ dtype: 'F32', shape: [3, DIM] });
    expect(header.indices).toMatchObject({ dtype: 'I64', shape: [3] });
    expect(header.id_hashes).toMatchObject({ dtype: 'U32', shape: [3] });
    expect(header.__metadata__.ids).toBeUndefined(); // no id list: 4 bytes an id
    const [hstart] = header.id_hashes.data_offsets;
    expect([0, 1, 2].map((row) => bytes.readUInt32LE(8 + headerLength + hstart + 4 * row))).toEqual(['seq1', 'seq3', 'seq4'].map(idHash));
    const base = 8 + headerLength;
    const [start] = header.embeddings.data_offsets;
    const row1 = new Float32Array(bytes.buffer.slice(bytes.byteOffset + base + start + DIM * 4, bytes.byteOffset + base + start + 2 * DIM * 4));
    expect(Array.from(row1)).toEqual(Array.from(vectorOf('seq3')));
    const [istart] = header.indices.data_offsets;
    expect(bytes.readBigInt64LE(base + istart + 16)).toBe(4n);
  });

  it('detects corrupted, truncated and missing shards and leaves their items to recompute', async () => {
    const dir = await tempDir();
    await writeRun(dir, Array.from({ length: 40 }, (_, i) => i), 10);
    const { shards } = (await readManifest(dir))!;
    const flipped = await readFile(join(dir, shards[1].file));
    flipped[flipped.length - 3] ^= 0xff; // one vector byte
    await writeFile(join(dir, shards[1].file), flipped);
    await truncate(join(dir, shards[2].file), 100);

    const resumed = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, resume: true });
    expect(resumed.report.droppedShards.map((d) => d.file)).toEqual([shards[1].file, shards[2].file]);
    expect(resumed.report.droppedShards[0].reason).toMatch(/sha256/);
    expect(resumed.report.droppedShards[1].reason).toMatch(/size/);
    expect(resumed.report.restoredItems).toBe(20);
    for (let i = 0; i < 40; i++) expect(resumed.restored.has(i)).toBe(i < 10 || i >= 30);
    // The manifest no longer lists them, and the files are gone.
    expect((await readManifest(dir))!.shards.map((s) => s.file)).toEqual([shards[0].file, shards[3].file]);
    expect(await readdir(dir)).not.toContain(shards[1].file);

    // Recomputed items go into new shards; a second resume restores everything.
    for (let i = 10; i < 30; i++) await resumed.append(record(i));
    await resumed.close({ complete: true });
    const again = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, resume: true });
    expect(again.report.restoredItems).toBe(40);
    expect((await again.restored.get(17)).matches('seq17')).toBe(true);
  });

  it('discards shard and temp files the manifest does not list (killed between shard and manifest write)', async () => {
    const dir = await tempDir();
    await writeRun(dir, [0, 1, 2], 3);
    await writeFile(join(dir, 'shard-000099.safetensors'), 'partial');
    await writeFile(join(dir, '.manifest.json.123.abcd.tmp'), '{');
    const resumed = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, resume: true });
    expect(resumed.report.strayFiles.sort()).toEqual(['.manifest.json.123.abcd.tmp', 'shard-000099.safetensors']);
    expect(resumed.report.restoredItems).toBe(3);
  });

  it('refuses to resume with another model or another input, naming both', async () => {
    const dir = await tempDir();
    await writeRun(dir, [0, 1], 1);
    await expect(openCheckpoint({ dir, model: { ...MODEL, name: 'other' }, inputFingerprint: INPUT, resume: true })).rejects.toThrow(
      CheckpointMismatchError,
    );
    // The refusal lists what differs, one line each, not the two identities as JSON.
    await expect(openCheckpoint({ dir, model: { ...MODEL, name: 'other' }, inputFingerprint: INPUT, resume: true })).rejects.toThrow(
      `cannot resume: the checkpoint in ${dir} was made with other models; what differs (this run vs the checkpoint):\n  name: other vs the checkpoint's hash-model\nresume with the interrupted run's models to keep its work, or --force to start over, which discards the 2 item(s) kept`, // the 2 items writeRun kept
    );
    await expect(openCheckpoint({ dir, model: MODEL, inputFingerprint: 'sha256:input-b', resume: true })).rejects.toThrow(/different input.*input-a.*input-b/);
    // Key order does not matter for the model identity.
    await expect(openCheckpoint({ dir, model: { dim: DIM, name: 'hash-model' }, inputFingerprint: INPUT, resume: true })).resolves.toBeTruthy();
  });

  it('describes model identity differences one line each', () => {
    const files = (...f: [string, number][]) => f;
    const checkpoint = { chunkLength: 500, esm: { name: 'esm2-a', files: files(['config.json', 10], ['model.safetensors', 100]) }, dnabert: { name: 'd', files: files(['w', 1]) } };
    const current = { dnabert: { name: 'd', files: files(['w', 1]) }, chunkLength: 300, esm: { name: 'esm2-b', files: files(['config.json', 10], ['model.safetensors', 90], ['extra.bin', 5]) } };
    expect(describeIdentityDifferences(checkpoint, current)).toEqual([
      "chunkLength: 300 vs the checkpoint's 500",
      "esm.name: esm2-b vs the checkpoint's esm2-a",
      "esm.files: file model.safetensors is 90 bytes vs the checkpoint's 100 bytes",
      "esm.files: file extra.bin (5 bytes) is not in the checkpoint's model",
    ]);
    expect(describeIdentityDifferences({ ...current, esm: { name: 'esm2-b', files: files(['config.json', 10]) } }, current).slice(-2)).toEqual([
      "esm.files: file model.safetensors (90 bytes) is not in the checkpoint's model",
      "esm.files: file extra.bin (5 bytes) is not in the checkpoint's model",
    ]);
    expect(describeIdentityDifferences(current, { ...current, esm: { name: 'esm2-b', files: [] } })).toEqual([
      "esm.files: file config.json (10 bytes) of the checkpoint's model is missing",
      "esm.files: file model.safetensors (90 bytes) of the checkpoint's model is missing",
      "esm.files: file extra.bin (5 bytes) of the checkpoint's model is missing",
    ]);
    expect(describeIdentityDifferences(checkpoint, checkpoint)).toEqual([]);
  });

  it('stores two scores a row in at most 64 bytes a row (id hashes, not ids), long ids included', async () => {
    const dir = await tempDir();
    const session = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, checkpointEvery: 10_000 });
    const longId = (i: number) => `A00123:456:HXXXXDSXX:1:1101:${10000 + i}:1000_chunk_1R3`;
    for (let i = 0; i < 10_000; i++) await session.append({ index: i, id: longId(i), vector: Float32Array.from([0.25, 0.75]) });
    await session.close();
    const { shards } = (await readManifest(dir))!;
    expect(shards).toHaveLength(1);
    expect(shards[0].bytes / 10_000).toBeLessThanOrEqual(64);
    const again = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, resume: true });
    expect((await again.restored.get(9_999)).matches(longId(9_999))).toBe(true);
    expect((await again.restored.get(9_999)).matches(longId(9_998))).toBe(false);
  });

  it('drops its shards once its run is complete, keeping the manifest: a resume with another identity is still refused', async () => {
    const dir = await tempDir();
    const session = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, checkpointEvery: 3 });
    for (let i = 0; i < 7; i++) await session.append(record(i));
    await session.close({ complete: true });
    const listed = (await readManifest(dir))!.shards.reduce((sum, s) => sum + s.bytes, 0);
    expect(listed).toBeGreaterThan(0);
    expect(await session.dropShards()).toBe(listed);
    expect(await readdir(dir)).toEqual(['manifest.json']);
    expect(await readManifest(dir)).toMatchObject({ complete: true, shards: [] });
    await expect(openCheckpoint({ dir, model: { ...MODEL, name: 'other' }, inputFingerprint: INPUT, resume: true })).rejects.toThrow(CheckpointMismatchError);
    const again = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, resume: true });
    expect(again.report.restoredItems).toBe(0);
  });

  it('refuses a fresh run over an existing checkpoint unless forced', async () => {
    const dir = await tempDir();
    await writeRun(dir, [0, 1], 1);
    await expect(openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT })).rejects.toThrow(OutputDirNotEmptyError);
    const forced = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, force: true });
    expect(forced.restored.count).toBe(0);
    expect(await readdir(dir)).toEqual(['manifest.json']);
  });

  it('writes a shard when the time trigger fires even below checkpointEvery', async () => {
    const dir = await tempDir();
    const session = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, checkpointEvery: 1000, checkpointIntervalMs: 40 });
    await session.append(record(0));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await readManifest(dir))!.shards).toHaveLength(1);
    await session.close();
  });

  it('fingerprints input files by content', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'a.fa'), '>x\nACGT\n');
    await writeFile(join(dir, 'b.fa'), '>x\nACGT\n');
    const a = await fingerprintFiles([join(dir, 'a.fa')]);
    expect(await fingerprintFiles([join(dir, 'b.fa')])).toBe(a);
    await writeFile(join(dir, 'b.fa'), '>x\nACGA\n');
    expect(await fingerprintFiles([join(dir, 'b.fa')])).not.toBe(a);
  });
});
