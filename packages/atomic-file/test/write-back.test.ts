// AtomicFile starts a write-back (fdatasync, not awaited) every WRITE_BACK_BYTES written, so that the fsync of
// complete() finds little left at the end of a long run; complete() and discard() wait for one under way, and a
// write-back's error fails complete() naming the file.
import { open, type FileHandle } from 'node:fs/promises';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { AtomicFile, FileWriteError } from '../src/index.js';
import { WRITE_BACK_BYTES } from '../src/atomic-file.js';

const root = mkdtempSync(join(tmpdir(), 'atomic-file-write-back-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** FileHandle's prototype (the class is not exported by node:fs/promises). */
async function fileHandlePrototype(): Promise<FileHandle> {
  const handle = await open(join(root, 'probe'), 'w');
  await handle.close();
  return Object.getPrototypeOf(handle) as FileHandle;
}

const MiB = 1 << 20;
const block = (k: number) => Buffer.alloc(MiB, k % 251);

describe('AtomicFile write-back', () => {
  afterEach(() => vi.restoreAllMocks());

  it('starts one every WRITE_BACK_BYTES while the writes go on, and the file holds every byte in order', async () => {
    const datasync = vi.spyOn(await fileHandlePrototype(), 'datasync');
    const path = join(root, 'long.bin');
    const file = await AtomicFile.create(path);
    const blocks = (2 * WRITE_BACK_BYTES) / MiB + 3;
    for (let k = 0; k < blocks; k++) await file.write(block(k));
    const beforeComplete = datasync.mock.calls.length;
    await file.commit();
    expect(beforeComplete).toBeGreaterThanOrEqual(1);
    expect(beforeComplete).toBeLessThanOrEqual(2);
    const written = readFileSync(path);
    expect(written.length).toBe(blocks * MiB);
    for (let k = 0; k < blocks; k++) expect(written[k * MiB], `block ${k}`).toBe(k % 251);
  });

  it('none for a small file', async () => {
    const datasync = vi.spyOn(await fileHandlePrototype(), 'datasync');
    const file = await AtomicFile.create(join(root, 'small.txt'));
    await file.write('x'.repeat(1000));
    await file.commit();
    expect(datasync).not.toHaveBeenCalled();
  });

  it("complete() waits for a write-back under way and fails with its error, naming the file; discard() still cleans up", async () => {
    let release!: () => void;
    vi.spyOn(await fileHandlePrototype(), 'datasync').mockImplementation(
      () => new Promise<void>((_, reject) => (release = () => reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })))),
    );
    const path = join(root, 'failing.bin');
    const file = await AtomicFile.create(path);
    for (let k = 0; k < WRITE_BACK_BYTES / MiB; k++) await file.write(block(k));
    let settled = false;
    const completing = file.complete().finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(false); // held by the write-back
    release();
    const error = await completing.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(FileWriteError);
    expect(String(error)).toContain(path);
    expect(String(error)).toContain('EIO');
    await file.discard();
    expect(() => readFileSync(file.tempPath)).toThrow();
  });
});
