// The duplicate-id check in bounded memory: ids past a run's size go to disk as sorted hashes, and a duplicate between
// two runs is found when the count ends; `predict`'s count refuses it with the same message as one within a run.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { InputCheck } from '../src/pipeline/input-check.js';
import { countFrames } from '../src/pipeline/input-count.js';
import { idHash } from '../src/pipeline/record-id-set.js';
import { SpilledRecordIds } from '../src/pipeline/spilled-record-ids.js';

const tmp = mkdtempSync(join(tmpdir(), 'spilled-ids-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const scratchDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith('virnucpro-ids-')).sort();

describe('SpilledRecordIds', () => {
  it('finds a repeat within a run at once and the hashes two runs share at the end; its scratch files go with dispose()', () => {
    const before = scratchDirs();
    const ids = new SpilledRecordIds(1_000);
    const id = (i: number) => `A00123:456:HXXXXDSXX:1:1101:${i}:1000`;
    for (let i = 0; i < 10_500; i++) expect(ids.addOrFind(id(i), i + 1)).toBeUndefined();
    expect(scratchDirs().length).toBe(before.length + 1); // ten runs on disk, the last 500 ids in memory
    expect(ids.sharedHashes()).toEqual([]);
    // Within the run in memory: found at once, with its record.
    expect(ids.addOrFind(id(10_200), 20_000)).toBe(10_201);
    // Between runs: ids of runs 0, 3 and 7 again, in the run still in memory.
    for (const i of [5, 3_500, 7_999]) expect(ids.addOrFind(id(i), 30_000 + i)).toBeUndefined();
    expect(ids.sharedHashes()).toEqual([id(5), id(3_500), id(7_999)].map(idHash).sort((a, b) => (a < b ? -1 : 1)));
    ids.dispose();
    expect(scratchDirs()).toEqual(before);
  });
});

describe('the count with the ids in runs', () => {
  const fasta = (ids: string[]) => ids.map((id) => `>${id} read\n${'ACGT'.repeat(40)}\n`).join('');

  it('refuses an id repeated in another run with both header lines, the repeat that comes first when there are several', async () => {
    const ids = Array.from({ length: 1_000 }, (_, i) => `read${i}`);
    ids[900] = 'read10'; // repeats record 11 (line 21), nine runs later
    ids[600] = 'read150'; // repeats record 151 (line 301): comes first
    const input = join(tmp, 'twice.fa');
    writeFileSync(input, fasta(ids));
    const before = scratchDirs();
    const refused = countFrames(input, 300, { check: new InputCheck(input, 'twice.fa', false, 100) });
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow("twice.fa: record id 'read150' appears twice (lines 301 and 1201); per-sequence results would be merged");
    expect(scratchDirs()).toEqual(before);
  });

  it('counts a long input of unique ids as one run would, and leaves no scratch file', async () => {
    const ids = Array.from({ length: 1_000 }, (_, i) => `read${i}`);
    const input = join(tmp, 'unique.fa');
    writeFileSync(input, fasta(ids));
    const before = scratchDirs();
    const inRuns = await countFrames(input, 300, { check: new InputCheck(input, 'unique.fa', false, 100) });
    const inOne = await countFrames(input, 300, { check: new InputCheck(input, 'unique.fa', false) });
    expect(inRuns).toEqual(inOne);
    expect(inRuns.sequences).toBe(1_000);
    expect(scratchDirs()).toEqual(before);
  });

  it('a refusal during the count (not DNA) leaves no scratch file either', async () => {
    const ids = Array.from({ length: 500 }, (_, i) => `read${i}`);
    const input = join(tmp, 'protein.fa');
    writeFileSync(input, `${fasta(ids)}>protein\n${'EFILPQ'.repeat(20)}\n`);
    const before = scratchDirs();
    await expect(countFrames(input, 300, { check: new InputCheck(input, 'protein.fa', false, 100) })).rejects.toThrow(/is not DNA/);
    expect(scratchDirs()).toEqual(before);
  });
});
