import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirectory, makeDirectorySync } from '../src/index.js';

const tmp = mkdtempSync(join(tmpdir(), 'make-directory-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.each([
  ['makeDirectory', (dir: string) => makeDirectory(dir)],
  ['makeDirectorySync', async (dir: string) => makeDirectorySync(dir)],
] as const)('%s', (name, make) => {
  it('creates missing parents and returns the first folder it made; undefined when the folder exists', async () => {
    const top = join(tmp, name);
    expect(await make(join(top, 'a', 'b'))).toBe(top);
    expect(existsSync(join(top, 'a', 'b'))).toBe(true);
    expect(await make(join(top, 'a', 'b'))).toBeUndefined();
  });

  // Node 20's mkdir(..., { recursive: true }) spins forever on these (issue 29); the test would time out.
  it.runIf(existsSync('/proc/self'))('fails at once with ENOENT under /proc instead of spinning', async () => {
    await expect(make('/proc/x')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(make('/proc/x/y/z')).rejects.toMatchObject({ code: 'ENOENT' });
  }, 5000);

  it('a file in the way: EEXIST for the folder itself, ENOTDIR below it', async () => {
    const file = join(tmp, `${name}-file`);
    writeFileSync(file, '');
    await expect(make(file)).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(make(join(file, 'sub'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });
});
