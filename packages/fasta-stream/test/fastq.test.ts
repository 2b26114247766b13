// FASTQ input: detected by content (first byte '@'), plain or gzip, 4-line records, qualities checked for length
// and dropped; the records equal those of the same reads written as FASTA, in any chunking.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FastaFormatError, readFastaBlocks } from '@virnucpro/fasta-stream';
import { chunkedStream, collect, rng } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'fastq-'));

/** Random reads: titles with and without descriptions, lengths 0–400, a few lowercase and N bases. */
function randomReads(seed: number, count: number): { title: string; sequence: string; quality: string }[] {
  const random = rng(seed);
  const letters = 'ACGTACGTACGTNacgt';
  return Array.from({ length: count }, (_, i) => {
    const length = Math.floor(random() * 400);
    let sequence = '';
    let quality = '';
    for (let k = 0; k < length; k++) {
      sequence += letters[Math.floor(random() * letters.length)];
      quality += String.fromCharCode(33 + Math.floor(random() * 42)); // '@' and '+' included
    }
    const title = random() < 0.5 ? `read_${i}` : `A00123:8:H5:1:${i} 1:N:0:ATCACG`;
    return { title, sequence, quality };
  });
}

const asFastq = (reads: ReturnType<typeof randomReads>, lineEnd = '\n', repeatTitle = false) =>
  reads.map((r) => `@${r.title}${lineEnd}${r.sequence}${lineEnd}+${repeatTitle ? r.title : ''}${lineEnd}${r.quality}${lineEnd}`).join('');
const asFasta = (reads: ReturnType<typeof randomReads>) => reads.map((r) => `>${r.title}\n${r.sequence}\n`).join('');

async function failure(promise: Promise<unknown>): Promise<FastaFormatError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(FastaFormatError);
  return error as FastaFormatError;
}

describe('FASTQ input', () => {
  const reads = randomReads(29, 3000);
  const fastaPath = join(tmp, 'reads.fa');
  writeFileSync(fastaPath, asFasta(reads));

  it('gives the records of the same reads as FASTA: file, gzip file, CRLF, repeated titles, any chunking', async () => {
    const expected = await collect(fastaPath);
    expect(expected).toHaveLength(3000);
    const fastq = asFastq(reads);
    const plain = join(tmp, 'reads.fq');
    const gz = join(tmp, 'reads.fq.gz');
    writeFileSync(plain, fastq);
    writeFileSync(gz, gzipSync(fastq));
    expect(await collect(plain)).toEqual(expected);
    expect(await collect(gz)).toEqual(expected);
    expect(await collect(plain, { chunkSize: 4096 })).toEqual(expected);
    expect(await collect(chunkedStream(Buffer.from(asFastq(reads, '\r\n', true)), [1, 7, 333, 4096, 65536]))).toEqual(expected);
    let blocks = 0;
    for await (const block of readFastaBlocks(gz)) blocks += block.length;
    expect(blocks).toBe(3000);
  });

  it('keeps a final record without a line break, skips blank lines between records, reads UTF-8 titles', async () => {
    expect(await collect(chunkedStream(Buffer.from('\ufeff@a é\nAC\n+\n!!\n\n@b\nG\n+b\n#'), [3]))).toEqual([
      { id: 'a', description: 'a é', sequence: 'AC' },
      { id: 'b', description: 'b', sequence: 'G' },
    ]);
  });

  it.each([
    ['a missing header', '@a\nAC\n+\n!!\nAC\n+\n!!\n', 5, /line 5: expected a FASTQ header line starting with '@', got "AC"/],
    ['a wrapped (multi-line) record', '@a\nACGT\nACGT\n+\n!!!!!!!!\n', 3, /line 3: record 'a': expected the '\+' line after the sequence, got "ACGT" .*multi-line FASTQ is not read/],
    ['a quality line of the wrong length', '@a\nACGT\n+\n!!!\n', 4, /line 4: record 'a': 3 quality characters for 4 bases/],
    ['a different title on the + line', '@a\nACGT\n+b\n!!!!\n', 3, /line 3: record 'a': the '\+' line repeats a different title/],
    ['blanks inside the sequence', '@a\nAC GT\n+\n!!!!!\n', 2, /line 2: record 'a': whitespace at sequence position 3/],
    ['the end inside a record', '@a\nACGT\n', 3, /line 3: the input ends inside FASTQ record 'a' \(expected its '\+' line/],
  ])('refuses %s with the file, the line and what was expected', async (_label, text, line, message) => {
    const path = join(tmp, `bad-${line}.fq`);
    writeFileSync(path, text);
    const error = await failure(collect(path));
    expect(error.message.startsWith(`${path}: line ${line}: `)).toBe(true);
    expect(error.message).toMatch(message);
    expect(error.line).toBe(line);
  });

  it('a FASTA file whose text merely contains @ is still FASTA', async () => {
    expect(await collect(chunkedStream(Buffer.from('>r @x\n@ACGT\n'), [5]))).toEqual([{ id: 'r', description: 'r @x', sequence: '@ACGT' }]);
  });
});
