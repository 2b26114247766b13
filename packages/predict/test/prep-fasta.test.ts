import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepFasta, PrepInputError } from '../src/index.js';

const data = new URL('../../../test-data/sixframe/', import.meta.url).pathname;
const lambda = new URL('../../../test-data/lambda_virus.fa', import.meta.url).pathname;

let out: string;
beforeEach(() => {
  out = mkdtempSync(join(tmpdir(), 'sixframe-prep-'));
});
afterEach(() => rmSync(out, { recursive: true, force: true }));

const outputNames = (stem: string, c: number) => [`${stem}_chunked${c}.fa`, `${stem}_identified_nucleotide.fa`, `${stem}_identified_protein.faa`];

function expectSameFiles(stem: string, c: number, expectedDir: string): void {
  for (const name of outputNames(stem, c)) {
    const got = readFileSync(join(out, name), 'latin1');
    const want = readFileSync(join(expectedDir, name), 'latin1');
    // toBe on whole files gives a readable diff on failure.
    expect(got, name).toBe(want);
  }
}

describe('prepFasta: byte-identical to the original tool', () => {
  it.each(['test_fixed_500bp', 'test_with_orfs'])('%s at 500 matches the real VirNucPro fixture outputs', async (stem) => {
    const summary = await prepFasta(join(data, `${stem}.fa`), { chunkSize: 500, outDir: out });
    expectSameFiles(stem, 500, data);
    expect(summary.records).toBe(2);
    expect(readdirSync(out).sort()).toEqual(outputNames(stem, 500).sort()); // no temp files left
  });

  it.each([
    ['inputs/synthetic_multi.fa', 'synthetic_multi', 500],
    ['inputs/synthetic_multi.fa', 'synthetic_multi', 300],
    ['inputs/crlf_lines.fa', 'crlf_lines', 500],
    ['inputs/crlf_lines.fa', 'crlf_lines', 300],
    ['test_fixed_500bp.fa', 'test_fixed_500bp', 300],
    ['test_with_orfs.fa', 'test_with_orfs', 300],
  ])('%s (stem %s) at C=%i matches the original code (multi-chunk, IUPAC, lower case)', async (input, stem, c) => {
    await prepFasta(join(data, input), { chunkSize: c as number, outDir: out });
    expectSameFiles(stem as string, c as number, join(data, `expected/c${c}`));
  });

  it.each([500, 300])('phage lambda (48.5 kb) at %i matches the original code', async (c) => {
    const summary = await prepFasta(lambda, { chunkSize: c, outDir: out });
    expectSameFiles('lambda_virus', c, join(data, `expected/c${c}`));
    expect(summary).toMatchObject({ records: 1, bases: 48502 });
  });

  it('reads gzip input and names outputs by the stem before .fa', async () => {
    const gz = join(out, 'in', 'test_with_orfs.fa.gz');
    rmSync(join(out, 'in'), { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(join(out, 'in')));
    writeFileSync(gz, gzipSync(readFileSync(join(data, 'test_with_orfs.fa'))));
    await prepFasta(gz, { chunkSize: 500, outDir: out });
    expectSameFiles('test_with_orfs', 500, data);
  });
});

describe('prepFasta: bad input is rejected and leaves no output', () => {
  const write = (name: string, text: string | Buffer) => {
    const path = join(out, name);
    writeFileSync(path, text);
    return path;
  };
  const expectRejected = async (input: string, message: RegExp) => {
    const dest = join(out, 'dest');
    await expect(prepFasta(input, { chunkSize: 500, outDir: dest })).rejects.toThrow(message);
    let left: string[] = [];
    try {
      left = readdirSync(dest);
    } catch {
      /* never created */
    }
    expect(left).toEqual([]);
  };

  it('a missing file', async () => {
    await expectRejected(join(out, 'nope.fa'), /nope\.fa: cannot read the input FASTA: no such file/);
    await expect(prepFasta(join(out, 'nope.fa'), { chunkSize: 500, outDir: out })).rejects.toBeInstanceOf(PrepInputError);
  });

  it('an empty file', async () => {
    await expectRejected(write('empty.fa', ''), /empty\.fa: empty file/);
  });

  it('a file with only blank lines', async () => {
    await expectRejected(write('blank.fa', '\n\n'), /blank\.fa: no FASTA records/);
  });

  it('a zero-length record, naming its header line', async () => {
    await expectRejected(write('zero.fa', '>a\nACGT\n>b desc\n\n>c\nACGT\n'), /zero\.fa: line 3: record 'b' has an empty sequence/);
  });

  it('a text file that is not FASTA', async () => {
    await expectRejected(write('notes.txt', 'just some notes\nmore\n'), /notes\.txt: line 1: .*'>'/);
  });

  it('binary data', async () => {
    await expectRejected(write('bin.fa', Buffer.from([0x3e, 0x61, 0x0a, 0x00, 0xff, 0xfe, 0x41])), /bin\.fa/);
  });

  it('a sequence character that is not printable ASCII', async () => {
    await expectRejected(write('tab.fa', '>a\nAC\tGT\n'), /tab\.fa: line 1: record 'a': character "\\t" \(U\+0009\) at sequence position 3/);
  });

  it('an aborted run', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(prepFasta(lambda, { chunkSize: 500, outDir: out, signal: controller.signal })).rejects.toThrow('stop');
    expect(readdirSync(out)).toEqual([]);
  });

  it('an abort in the middle removes the temp files', async () => {
    const controller = new AbortController();
    const big = write('big.fa', `>big\n${'ACGT'.repeat(600_000)}\n>more\n${'ACG'.repeat(400_000)}\n`);
    const dest = join(out, 'dest');
    const run = prepFasta(big, {
      chunkSize: 500,
      outDir: dest,
      signal: controller.signal,
      onProgress: () => controller.abort(new Error('interrupted')),
    });
    await expect(run).rejects.toThrow('interrupted');
    expect(readdirSync(dest)).toEqual([]);
  });
});
