// `virnucpro prep` through the built launcher: the three files byte-identical to the original tool's, and
// bad input → exit 2 with one clear line and nothing left in --out-dir.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { bin, runCli, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'prep-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const examples = join(testData, 'sixframe');

describe('virnucpro prep', () => {
  it.each(['test_with_orfs', 'test_fixed_500bp'])('%s: writes the original tool\'s three files byte for byte', (stem) => {
    const out = join(tmp, stem);
    const run = runCli(['prep', join(examples, `${stem}.fa`), '--length', '500', '--out-dir', out, '--quiet']);
    expect(run.status, run.stderr).toBe(0);
    for (const suffix of ['_chunked500.fa', '_identified_nucleotide.fa', '_identified_protein.faa']) {
      expect(readFileSync(join(out, stem + suffix), 'utf8'), stem + suffix).toBe(readFileSync(join(examples, stem + suffix), 'utf8'));
    }
    expect(run.stdout.trim().split('\n')).toEqual(
      ['_chunked500.fa', '_identified_nucleotide.fa', '_identified_protein.faa'].map((s) => join(out, stem + s)),
    );
  });

  it.each([
    ['an empty file', '', /empty|no FASTA records/i],
    ['a file that is not FASTA', 'hello world\nthis is text\n', /FASTA/],
    ['a zero-length record', '>a\nACGT\n>b\n>c\nAC\n', /b|empty|no sequence/i],
  ])('%s: exit 2, one clear error, no output files', (_label, content, message) => {
    const input = join(tmp, `bad-${Math.random().toString(36).slice(2)}.fa`);
    writeFileSync(input, content);
    const out = join(tmp, `out-${Math.random().toString(36).slice(2)}`);
    const run = runCli(['prep', input, '--out-dir', out]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain(input);
    let left: string[] = [];
    try {
      left = readdirSync(out);
    } catch {
      // never created: also fine
    }
    expect(left).toEqual([]);
  });

  it('reads standard input (-) as its --help says: the files of the same records given by name, stem "stdin"', () => {
    const stem = 'test_with_orfs';
    const out = join(tmp, 'from-stdin');
    const run = spawnSync(process.execPath, [bin, 'prep', '-', '--out-dir', out, '--quiet'], { input: readFileSync(join(examples, `${stem}.fa`)), encoding: 'utf8' });
    expect([run.status, run.stderr]).toEqual([0, '']);
    for (const suffix of ['_chunked500.fa', '_identified_nucleotide.fa', '_identified_protein.faa']) {
      expect(readFileSync(join(out, `stdin${suffix}`), 'utf8'), suffix).toBe(readFileSync(join(examples, stem + suffix), 'utf8'));
    }
  });

  it('rejects a chunk length other than 300 or 500', () => {
    const run = runCli(['prep', join(examples, 'test_with_orfs.fa'), '--length', '400', '--out-dir', join(tmp, 'x')]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/length/);
  });
});
