import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertOutputDirUsable, OutputDirNotEmptyError } from '../src/index.js';

describe('assertOutputDirUsable (a run\'s output folder)', () => {
  it('creates a missing folder, accepts an empty one', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'output-dir-'));
    expect(await assertOutputDirUsable(join(parent, 'a', 'b'), {})).toEqual({ existed: false, empty: true });
    expect(existsSync(join(parent, 'a', 'b'))).toBe(true);
    expect(await assertOutputDirUsable(join(parent, 'a', 'b'), {})).toEqual({ existed: true, empty: true });
  });

  it('refuses a folder holding results for a fresh run, not with resume or force', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'output-dir-'));
    writeFileSync(join(dir, 'prediction_results.txt'), 'x');
    const refusal = await assertOutputDirUsable(dir, {}).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(OutputDirNotEmptyError);
    expect((refusal as Error).message).toBe(`output directory ${dir} is not empty; pass --resume to continue that run or --force to overwrite it`);
    expect(await assertOutputDirUsable(dir, { resume: true })).toEqual({ existed: true, empty: false });
    expect(await assertOutputDirUsable(dir, { force: true })).toEqual({ existed: true, empty: false });
  });
});
