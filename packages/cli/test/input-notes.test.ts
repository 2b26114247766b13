// What predict says about its input after reading it (issue 48): a record too short to say much is scored, as the
// original scores it, but not silently.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countFrames, SHORT_RECORD_BASES } from '../src/pipeline/input-count.js';
import { inputNotes } from '../src/pipeline/input-notes.js';

const tmp = mkdtempSync(join(tmpdir(), 'input-notes-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const bases = (n: number) => 'ACGTTGCAAT'.repeat(Math.ceil(n / 10)).slice(0, n);

describe('inputNotes', () => {
  it('warns of records shorter than SHORT_RECORD_BASES, naming them and --min-length; none for longer ones', async () => {
    const input = join(tmp, 'mixed.fa');
    writeFileSync(input, `>long\n${bases(600)}\n>tiny\n${bases(10)}\n>edge\n${bases(SHORT_RECORD_BASES)}\n`);
    const totals = await countFrames(input, 500);
    expect(totals.short).toBe(1);
    const lines = inputNotes(totals, undefined);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^virnucpro: warning: 1 record is shorter than ${SHORT_RECORD_BASES} bases \\('tiny' 10 bp\\); .*--min-length ${SHORT_RECORD_BASES} skips such records$`));
  });

  it('says nothing of short records that --min-length skips (the skip note names them)', async () => {
    const input = join(tmp, 'skipped.fa');
    writeFileSync(input, `>long\n${bases(600)}\n>tiny\n${bases(10)}\n`);
    const lines = inputNotes(await countFrames(input, 500, { minLength: 20 }), 20);
    expect(lines).toEqual([expect.stringMatching(/^virnucpro: note: 1 record shorter than --min-length 20 skipped/)]);
  });
});
