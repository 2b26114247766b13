import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AtomicFile, BufferedAtomicFile, commitAll, type StagedOutput, FileWriteError, FULL_DISK_ENV, parseTempName, removeStaleTempFiles, tempPathFor, writeFileAtomic, writeFileAtomicSync } from '../src/index.js';

const dir = () => mkdtempSync(join(tmpdir(), 'atomic-file-'));
afterEach(() => {
  delete process.env[FULL_DISK_ENV];
});

describe('AtomicFile', () => {
  it('writeAt: blocks written at their places, out of order and many at once, all on disk once complete', async () => {
    const d = dir();
    const path = join(d, 'placed.bin');
    const file = await AtomicFile.create(path);
    const blocks = Array.from({ length: 40 }, (_, i) => new Uint8Array(100_003).fill(i + 1));
    const order = blocks.map((_, i) => (i * 17) % blocks.length); // every block once, out of order
    const writes = order.map((i) => file.writeAt(blocks[i], 8 + i * 100_003)); // none awaited before the next
    await file.writeAt(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]), 0);
    await file.complete(); // waits for the ones still under way
    await Promise.all(writes);
    await file.publish();
    const bytes = readFileSync(path);
    expect(bytes.length).toBe(8 + 40 * 100_003);
    expect([...bytes.subarray(0, 8)]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (let i = 0; i < 40; i++) expect(bytes.subarray(8 + i * 100_003, 8 + (i + 1) * 100_003).every((v) => v === i + 1)).toBe(true);
  });

  it('writeAt: refused once completed, and discard with writes under way leaves no file', async () => {
    const d = dir();
    const done = await AtomicFile.create(join(d, 'done.bin'));
    await done.complete();
    await expect(done.writeAt(new Uint8Array(4), 0)).rejects.toThrow(/write after the file was completed/);
    await done.discard();
    const file = await AtomicFile.create(join(d, 'gone.bin'));
    const writes = Array.from({ length: 8 }, (_, i) => file.writeAt(new Uint8Array(1 << 20), i << 20).catch(() => undefined));
    await file.discard();
    await Promise.all(writes);
    expect(readdirSync(d)).toEqual([]);
  });

  it('syncEveryBytes: data syncs start beside the writes as they pass the mark, one at a time; none without it', async () => {
    const d = dir();
    const probe = await open(join(d, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
    await probe.close();
    let syncs = 0;
    let running = 0;
    let overlapped = false;
    const spy = vi.spyOn(proto, 'datasync').mockImplementation(async function (this: unknown) {
      syncs++;
      overlapped ||= ++running > 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
    });
    try {
      const block = (i: number) => new Uint8Array(1 << 20).fill(i);
      const synced = await AtomicFile.create(join(d, 'synced.bin'), { syncEveryBytes: 2 << 20 });
      for (let i = 0; i < 9; i++) await synced.writeAt(block(i), i << 20);
      await synced.commit();
      expect(syncs).toBeGreaterThanOrEqual(2); // 9 MiB at a 2-MiB mark, some passed while one was under way
      expect(syncs).toBeLessThanOrEqual(4);
      expect(overlapped).toBe(false);
      const bytes = readFileSync(join(d, 'synced.bin'));
      expect(bytes.length).toBe(9 << 20);
      for (let i = 0; i < 9; i++) expect(bytes[(i << 20) + 12345]).toBe(i);
      syncs = 0;
      const appended = await AtomicFile.create(join(d, 'appended.bin'), { syncEveryBytes: 2 << 20 });
      for (let i = 0; i < 3; i++) await appended.write(block(i));
      await appended.commit();
      expect(syncs).toBe(1); // appends count too
      syncs = 0;
      const plain = await AtomicFile.create(join(d, 'plain.bin'));
      for (let i = 0; i < 8; i++) await plain.writeAt(block(i), i << 20);
      await plain.commit();
      expect(syncs).toBe(0);
    } finally {
      spy.mockRestore();
    }
  });

  it('syncEveryBytes: a data sync that fails fails complete() naming the file; discard then leaves nothing', async () => {
    const d = dir();
    const probe = await open(join(d, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
    await probe.close();
    await rm(join(d, 'probe'));
    const spy = vi.spyOn(proto, 'datasync').mockRejectedValue(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    try {
      const file = await AtomicFile.create(join(d, 'failed.bin'), { syncEveryBytes: 1 << 20 });
      await file.writeAt(new Uint8Array(2 << 20), 0);
      const failure = await file.complete().then(() => undefined, (error: unknown) => error);
      expect(failure).toBeInstanceOf(FileWriteError);
      expect(String(failure)).toMatch(/failed\.bin.*EIO|EIO.*failed\.bin/s);
      await file.discard();
      expect(readdirSync(d)).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });

  it('is invisible under its name until published; complete then publish lets several appear together', async () => {
    const d = dir();
    const a = await AtomicFile.create(join(d, 'a.txt'));
    const b = await AtomicFile.create(join(d, 'b.txt'));
    await a.write('alpha\n');
    await b.write(Buffer.from('beta\n'));
    await a.complete();
    await b.complete();
    expect(readdirSync(d).filter((n) => !n.startsWith('.'))).toEqual([]);
    expect(readdirSync(d).map((n) => parseTempName(n)?.target).sort()).toEqual(['a.txt', 'b.txt']);
    await a.publish();
    await b.publish();
    expect(readdirSync(d).sort()).toEqual(['a.txt', 'b.txt']);
    expect(readFileSync(join(d, 'a.txt'), 'utf8')).toBe('alpha\n');
  });

  it('discard leaves the target as it was and no temporary file', async () => {
    const d = dir();
    writeFileSync(join(d, 'x.txt'), 'old');
    const file = await AtomicFile.create(join(d, 'x.txt'));
    await file.write('new');
    await file.discard();
    expect(readdirSync(d)).toEqual(['x.txt']);
    expect(readFileSync(join(d, 'x.txt'), 'utf8')).toBe('old');
  });

  it('a full disk (injected) fails naming the file, and writeFileAtomic leaves nothing behind', async () => {
    const d = dir();
    process.env[FULL_DISK_ENV] = 'full.txt';
    const error = await writeFileAtomic(join(d, 'full.txt'), 'data').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileWriteError);
    expect((error as FileWriteError).code).toBe('ENOSPC');
    expect((error as Error).message).toBe(`cannot write ${join(d, 'full.txt')}: no space left on the device (ENOSPC)`);
    expect(() => writeFileAtomicSync(join(d, 'full.txt'), 'data')).toThrow(/^cannot write .*full\.txt: no space left/);
    await writeFileAtomic(join(d, 'other.txt'), 'fine');
    expect(readdirSync(d)).toEqual(['other.txt']);
  });

  it('a real write error (folder gone) names the file', async () => {
    const error = await writeFileAtomic(join(dir(), 'missing', 'f.txt'), 'x').catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^cannot write .*missing\/f\.txt: ENOENT/);
  });
});

describe('temporary names', () => {
  it('one scheme: hidden, beside the target, with the pid', () => {
    const temp = tempPathFor('/out/prediction_results.txt');
    expect(temp).toMatch(/^\/out\/\.prediction_results\.txt\.\d+\.[0-9a-f]{8}\.tmp$/);
    expect(parseTempName(basename(temp))).toEqual({ target: 'prediction_results.txt', pid: process.pid });
    expect(parseTempName('prediction_results.txt')).toBeNull();
  });

  it("removes a dead process's leftovers and keeps a live writer's", async () => {
    const d = dir();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const stale = `.r.txt.${dead}.0badc0de.tmp`;
    const live = basename(tempPathFor(join(d, 'r.txt')));
    for (const name of [stale, live, 'r.txt']) writeFileSync(join(d, name), '');
    expect(await removeStaleTempFiles(d)).toEqual([stale]);
    expect(existsSync(join(d, live))).toBe(true);
  });
});

describe('commitAll (StagedOutput)', () => {
  it('completes every output before it publishes any, then publishes them in order', async () => {
    const events: string[] = [];
    const output = (name: string, failComplete = false): StagedOutput => ({
      complete: async () => {
        events.push(`complete ${name}`);
        if (failComplete) throw new Error(`${name}: no space left`);
      },
      publish: async () => void events.push(`publish ${name}`),
      discard: async () => void events.push(`discard ${name}`),
    });
    await commitAll([output('a'), output('b'), output('marker')]);
    expect(events).toEqual(['complete a', 'complete b', 'complete marker', 'publish a', 'publish b', 'publish marker']);
    events.length = 0;
    await expect(commitAll([output('a'), output('b', true), output('marker')])).rejects.toThrow(/b: no space left/);
    expect(events).toEqual(['complete a', 'complete b']); // nothing published
  });

  it('publishes real files together, the last one last', async () => {
    const d = dir();
    const a = await AtomicFile.create(join(d, 'a.txt'));
    const marker = await AtomicFile.create(join(d, 'run_summary.json'));
    await a.write('rows');
    await marker.write('{}');
    await commitAll([a, marker]);
    expect(readdirSync(d).sort()).toEqual(['a.txt', 'run_summary.json']);
    expect(readFileSync(join(d, 'a.txt'), 'utf8')).toBe('rows');
  });
});

describe('BufferedAtomicFile', () => {
  it('writes the pieces in order, appears only when published, and wraps lines by characters as Python counts them', async () => {
    const d = dir();
    const file = await BufferedAtomicFile.create(join(d, 'out.fa'));
    await file.write('>a\n');
    file.writeWrapped('ACGTACGTAC', 4);
    file.writeByte(0x3e);
    file.writeAscii('b');
    file.writeByte(0x0a);
    // Non-ASCII: lines of 2 characters, a character outside the BMP counting as one (not as its two UTF-16 units).
    file.writeWrapped('é😀xy', 2);
    await file.complete();
    expect(readdirSync(d).filter((n) => !n.startsWith('.'))).toEqual([]);
    await file.publish();
    expect(readFileSync(join(d, 'out.fa'), 'utf8')).toBe('>a\nACGT\nACGT\nAC\n>b\né😀\nxy\n');
  });

  it('a full block goes to disk before write() resolves; a large text written at once keeps its place after the rows', async () => {
    const d = dir();
    const path = join(d, 'big.tsv');
    const file = await BufferedAtomicFile.create(path);
    const row = `${'x'.repeat(99)}\n`;
    for (let i = 0; i < 11_000; i++) await file.write(row); // 1.1 MB: at least one block written while writing
    expect(file.full).toBe(false);
    const table = 'y'.repeat(3 << 20);
    await file.write(table);
    await file.commit();
    const text = readFileSync(path, 'utf8');
    expect(text.length).toBe(11_000 * row.length + table.length);
    expect(text.slice(0, 11_000 * row.length)).toBe(row.repeat(11_000));
    expect(text.slice(11_000 * row.length)).toBe(table);
  });

  it('pieces that do not fit the rest of a block start the next one, in order, also between two flushes', async () => {
    const d = dir();
    const path = join(d, 'straddle.txt');
    const file = await BufferedAtomicFile.create(path);
    const pieces: string[] = [];
    let seed = 5;
    const rand = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    // Sync writes of odd sizes (some non-ASCII, some wrapped) across several 1 MiB block ends; flushed only when full.
    for (let i = 0; pieces.join('').length < 3.5 * (1 << 20); i++) {
      const piece = `${i}:${'é'.repeat(Math.floor(rand() * 5))}${'z'.repeat(Math.floor(rand() * 20_000))}\n`;
      pieces.push(piece);
      file.writeText(piece);
      if (i % 7 === 0) {
        file.writeWrapped('ACGT'.repeat(1000), 60);
        pieces.push(`${'ACGT'.repeat(1000)}`.replace(/(.{60})/g, '$1\n').replace(/([^\n])$/, '$1\n'));
      }
      if (file.full) await file.flush();
    }
    await file.commit();
    expect(readFileSync(path, 'utf8')).toBe(pieces.join(''));
  });

  it('fills a block again only once its write is done: a block is written while the next fills', async () => {
    // Blocks are reused (two take turns); one handed to the file must not be refilled while its write is under way.
    // Each flush here hands over one block and is not awaited before the next piece is written.
    const d = dir();
    const path = join(d, 'turns.txt');
    const file = await BufferedAtomicFile.create(path);
    const flushes: Promise<void>[] = [];
    let expected = '';
    for (let i = 0; i < 30; i++) {
      const piece = `${i}:${String.fromCharCode(97 + (i % 26)).repeat(200_000)}\n`;
      file.writeText(piece);
      expected += piece;
      flushes.push(file.flush());
    }
    await Promise.all(flushes);
    await file.commit();
    expect(readFileSync(path, 'utf8') === expected).toBe(true);
  });

  it('discard leaves no file, whatever was buffered', async () => {
    const d = dir();
    const file = await BufferedAtomicFile.create(join(d, 'gone.txt'));
    file.writeText('pending');
    await file.discard();
    expect(readdirSync(d)).toEqual([]);
  });
});
