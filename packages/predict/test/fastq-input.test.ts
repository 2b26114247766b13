// FASTQ into prep: the same three files as the same reads given as FASTA, and error lines that point at the FASTQ
// record's '@' line.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHeaderLine } from '@virnucpro/fasta-stream';
import { prepFasta } from '../src/index.js';

const lambda = readFileSync(new URL('../../../test-data/lambda_virus.fa', import.meta.url), 'utf8').split('\n').slice(1).join('');
const tmp = mkdtempSync(join(tmpdir(), 'sixframe-fastq-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Reads of 150–1,200 bp (one to three 500-bp chunks), titles with descriptions, CRLF in the FASTQ.
const reads = Array.from({ length: 40 }, (_, i) => ({ title: `r${i} lane=${i % 3}`, sequence: lambda.slice(i * 997, i * 997 + 150 + ((i * 211) % 1050)) }));
const fasta = reads.map((r) => `>${r.title}\n${r.sequence}\n`).join('');
const fastq = reads.map((r) => `@${r.title}\r\n${r.sequence}\r\n+\r\n${'F'.repeat(r.sequence.length)}\r\n`).join('');

describe('prep of FASTQ', () => {
  it('writes the bytes prep writes for the same reads as FASTA (plain and gzip)', async () => {
    writeFileSync(join(tmp, 'reads.fa'), fasta);
    writeFileSync(join(tmp, 'reads.fq'), fastq);
    writeFileSync(join(tmp, 'reads.fq.gz'), gzipSync(fastq));
    const want = await prepFasta(join(tmp, 'reads.fa'), { chunkSize: 500, outDir: join(tmp, 'fa'), stem: 's' });
    expect(want.records).toBe(40);
    for (const input of ['reads.fq', 'reads.fq.gz']) {
      const got = await prepFasta(join(tmp, input), { chunkSize: 500, outDir: join(tmp, `out-${input}`), stem: 's' });
      expect({ ...got, paths: undefined }).toEqual({ ...want, paths: undefined });
      for (const key of ['chunked', 'nucleotide', 'protein'] as const) {
        expect(readFileSync(got.paths[key]).equals(readFileSync(want.paths[key])), key).toBe(true);
      }
    }
  });

  it("recordHeaderLine names a FASTQ record's '@' line (a quality line starting with '@' is not a header)", async () => {
    const path = join(tmp, 'at-quality.fq');
    writeFileSync(path, '\ufeff@a\nAC\n+\n@@\n@b\nGG\n+\n@I\n\n@c\nT\n+\n!\n');
    expect(await Promise.all([1, 2, 3, 4].map((n) => recordHeaderLine(path, n)))).toEqual([1, 5, 10, undefined]);
    writeFileSync(join(tmp, 'bom.fa'), '\ufeff>a\nAC\n>b\nG\n');
    expect(await recordHeaderLine(join(tmp, 'bom.fa'), 1)).toBe(1);
  });
});
