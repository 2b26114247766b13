import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileWriteError, publishFile } from '../src/index.js';

const dir = () => mkdtempSync(join(tmpdir(), 'publish-file-'));

describe('publishFile (a file written under a name of its own, e.g. a resumable download.part)', () => {
  it('replaces the target with the finished file and leaves nothing else', async () => {
    const d = dir();
    writeFileSync(join(d, 'model.bin'), 'old');
    writeFileSync(join(d, 'model.bin.part'), 'new bytes');
    await publishFile(join(d, 'model.bin.part'), join(d, 'model.bin'));
    expect(readdirSync(d)).toEqual(['model.bin']);
    expect(readFileSync(join(d, 'model.bin'), 'utf8')).toBe('new bytes');
  });

  it('a missing source fails naming the target, which stays as it was', async () => {
    const d = dir();
    writeFileSync(join(d, 'model.bin'), 'old');
    const failure = await publishFile(join(d, 'gone.part'), join(d, 'model.bin')).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(FileWriteError);
    expect((failure as FileWriteError).message).toMatch(/^cannot write .*model\.bin: /);
    expect((failure as FileWriteError).code).toBe('ENOENT');
    expect(readFileSync(join(d, 'model.bin'), 'utf8')).toBe('old');
    expect(existsSync(join(d, 'gone.part'))).toBe(false);
  });
});
