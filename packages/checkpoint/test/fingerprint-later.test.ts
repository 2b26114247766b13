// A fresh run that starts before its input is read through (virnucpro predict counts the input beside the compute):
// the fingerprint comes as a promise, shards are written at once, and the manifest — the checkpoint's identity —
// only once the fingerprint is known. A run stopped before then leaves nothing that a resume trusts.
import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { openCheckpoint, readManifest } from '../src/index.js';
import { record, tempDir } from './helpers.js';

const MODEL = { name: 'hash-model' };
const INPUT = 'sha256:input-a';

function later<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('a checkpoint whose input fingerprint comes later', () => {
  it('writes shards but no manifest until the fingerprint comes, then lists them under it', async () => {
    const dir = await tempDir();
    const fingerprint = later<string>();
    const session = await openCheckpoint({ dir, model: MODEL, inputFingerprint: fingerprint.promise, checkpointEvery: 3 });
    for (let index = 0; index < 7; index++) await session.append(record(index));
    await session.flush();
    expect((await readdir(dir)).sort()).toEqual(['shard-000001.safetensors', 'shard-000002.safetensors', 'shard-000003.safetensors']);
    expect(await readManifest(dir)).toBeNull();
    expect(session.itemsStored).toBe(0); // nothing a resume would trust yet

    fingerprint.resolve(INPUT);
    for (let index = 7; index < 10; index++) await session.append(record(index));
    await session.close({ complete: true });
    const manifest = (await readManifest(dir))!;
    expect(manifest.inputFingerprint).toBe(INPUT);
    expect(manifest.complete).toBe(true);
    expect(manifest.shards.map((s) => s.count)).toEqual([3, 3, 1, 3]);
    expect(session.itemsStored).toBe(10);

    const resumed = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, resume: true });
    expect(resumed.report).toMatchObject({ verifiedShards: 4, restoredItems: 10, droppedShards: [], strayFiles: [] });
  });

  it('a run stopped before its fingerprint came: a resume restores nothing and removes its shards', async () => {
    const dir = await tempDir();
    const session = await openCheckpoint({ dir, model: MODEL, inputFingerprint: later<string>().promise, checkpointEvery: 2 });
    for (let index = 0; index < 5; index++) await session.append(record(index));
    await session.flush(); // what a stopped run does before it exits

    const resumed = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, resume: true });
    expect(resumed.report).toMatchObject({ verifiedShards: 0, restoredItems: 0 });
    expect(resumed.report.strayFiles.sort()).toEqual(['shard-000001.safetensors', 'shard-000002.safetensors', 'shard-000003.safetensors']);
    expect(resumed.restored.has(0)).toBe(false);
    expect(await readdir(dir)).toEqual(['manifest.json']);
  });

  it('a fingerprint that fails: no manifest ever, close() fails with its error', async () => {
    const dir = await tempDir();
    const fingerprint = later<string>();
    const session = await openCheckpoint({ dir, model: MODEL, inputFingerprint: fingerprint.promise, checkpointEvery: 2 });
    for (let index = 0; index < 3; index++) await session.append(record(index));
    fingerprint.reject(new Error('record #3 is not DNA'));
    await expect(session.close({ complete: true })).rejects.toThrow('record #3 is not DNA');
    expect(await readManifest(dir)).toBeNull();
    expect(session.itemsStored).toBe(0);
  });

  it('a resume given a promise waits for it before comparing', async () => {
    const dir = await tempDir();
    const first = await openCheckpoint({ dir, model: MODEL, inputFingerprint: INPUT, checkpointEvery: 2 });
    for (let index = 0; index < 4; index++) await first.append(record(index));
    await first.close();
    const other = openCheckpoint({ dir, model: MODEL, inputFingerprint: Promise.resolve('sha256:input-b'), resume: true });
    await expect(other).rejects.toThrow(/different input/);
    const same = await openCheckpoint({ dir, model: MODEL, inputFingerprint: Promise.resolve(INPUT), resume: true });
    expect(same.report.restoredItems).toBe(4);
  });
});
