import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FastaFormatError } from '@virnucpro/fasta-stream';
import { chunkedStream, collect } from './helpers.js';

function stream(text: string | Buffer, sizes = [1000]) {
  return chunkedStream(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, sizes);
}

async function failure(promise: Promise<unknown>): Promise<FastaFormatError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FastaFormatError);
  return error as FastaFormatError;
}

describe('policies where FASTA readers disagree', () => {
  it('id is the header up to the first whitespace; description is the whole header, right-stripped', async () => {
    const [r] = await collect(stream('>sp|P1|X  some protein \t\nMKV\n'));
    expect(r).toEqual({ id: 'sp|P1|X', description: 'sp|P1|X  some protein', sequence: 'MKV' });
  });

  it('keeps letter case, other symbols and a missing final newline', async () => {
    expect(await collect(stream('>a\nacgtNNRY-*.\nAC'))).toEqual([{ id: 'a', description: 'a', sequence: 'acgtNNRY-*.AC' }]);
  });

  it('empty records and a lone ">" are records (Biopython)', async () => {
    expect(await collect(stream('>\n>b\n>c\nA\n'))).toEqual([
      { id: '', description: '', sequence: '' },
      { id: 'b', description: 'b', sequence: '' },
      { id: 'c', description: 'c', sequence: 'A' },
    ]);
  });

  it('skips text before the first record by default, with one warning; leadingText "error" rejects it', async () => {
    const warnings: string[] = [];
    const text = '# made by a tool\n\nsecond line\n>a\nAC\n';
    expect(await collect(stream(text), { onWarning: (w) => warnings.push(w), name: 'in.fa' })).toEqual([{ id: 'a', description: 'a', sequence: 'AC' }]);
    expect(warnings).toEqual(["in.fa: line 1: text before the first '>' record was ignored"]);
    const error = await failure(collect(stream(text), { leadingText: 'error', name: 'in.fa' }));
    expect(error.line).toBe(1);
    expect(error.file).toBe('in.fa');
    // blank lines before the first record are not "text"
    expect(await collect(stream('\n \n>a\nA\n'), { leadingText: 'error' })).toHaveLength(1);
  });

  it("';' lines are sequence text (Biopython 'fasta'), or comments with semicolonComments", async () => {
    const text = '>a\nAC\n;note\nGT\n';
    expect((await collect(stream(text)))[0].sequence).toBe('AC;noteGT');
    expect((await collect(stream(text), { semicolonComments: true }))[0].sequence).toBe('ACGT');
  });

  it('removes spaces inside sequence lines but keeps tabs (Biopython)', async () => {
    expect((await collect(stream('>a\nAC GT \nA\tC\t\n')))[0].sequence).toBe('ACGTA\tC');
  });

  it('strips a UTF-8 byte-order mark (Biopython would lose the first record) and rejects UTF-16', async () => {
    expect(await collect(stream(Buffer.from('\ufeff>a\nAC\n', 'utf8'), [2]))).toEqual([{ id: 'a', description: 'a', sequence: 'AC' }]);
    const error = await failure(collect(stream(Buffer.from('\ufeff>a\nAC\n', 'utf16le')), { name: 'u16.fa' }));
    expect(error.message).toMatch(/UTF-16/);
  });

  it('reports NUL / binary input with file, line and byte', async () => {
    const error = await failure(collect(stream('>a\nACGT\nAC\u0000GT\n', [3]), { name: 'bin.fa' }));
    expect(error.file).toBe('bin.fa');
    expect(error.line).toBe(3);
    expect(error.byte).toBe(10);
    expect(error.message).toBe('bin.fa: line 3, byte 10: NUL byte: binary data, or not a FASTA text file');
  });

  it('reports invalid UTF-8 with file, line and byte, also when split across chunks', async () => {
    const bytes = Buffer.concat([Buffer.from('>a\nÄC\n'), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]);
    for (const sizes of [[1000], [1], [4, 1]]) {
      const error = await failure(collect(stream(bytes, sizes), { name: 'bad.fa' }));
      expect([error.line, error.byte]).toEqual([3, 7]);
    }
    const cut = Buffer.concat([Buffer.from('>a\nAC'), Buffer.from([0xe2, 0x82])]);
    expect((await failure(collect(stream(cut, [6])))).message).toMatch(/inside a UTF-8 character/);
    expect((await collect(stream(Buffer.from('>\u00e9\u20ac\nA\n'), [1])))[0].id).toBe('\u00e9\u20ac');
  });

  it('reads a path, and a missing path fails with the path in the message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fasta-'));
    const path = join(dir, 'x.fa');
    writeFileSync(path, '>x y\nAC\nGT\n');
    expect(await collect(path)).toEqual([{ id: 'x', description: 'x y', sequence: 'ACGT' }]);
    await expect(collect(join(dir, 'missing.fa'))).rejects.toThrow(/missing\.fa/);
  });
});
