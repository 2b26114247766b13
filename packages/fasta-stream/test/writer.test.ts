import { mkdtempSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FastaWriter, fastaTitle, formatFastaRecord, readFasta, writeFasta, type FastaRecord } from '@virnucpro/fasta-stream';
import { biopythonParse } from './biopython-oracle.js';

const data = new URL('../../../test-data/fasta/', import.meta.url);

async function all(path: string): Promise<FastaRecord[]> {
  const out: FastaRecord[] = [];
  for await (const r of readFasta(path)) out.push(r);
  return out;
}

describe('FASTA writer (Biopython FastaWriter / as_fasta)', () => {
  it('reproduces a file Biopython wrote: >{id}_chunk_1 with 60-column lines', async () => {
    const input = await all(new URL('test_fixed_500bp.fa', data).pathname);
    const dir = mkdtempSync(join(tmpdir(), 'fasta-w-'));
    const out = join(dir, 'chunked.fa');
    const n = await writeFasta(
      input.map((r) => ({ id: `${r.id}_chunk_1`, description: '', sequence: r.sequence })),
      out,
    );
    expect(n).toBe(2);
    expect(readFileSync(out)).toEqual(readFileSync(new URL('test_fixed_500bp_chunked500.fa', data)));
  });

  it('reproduces an f-string single-line file with lineWidth 0', async () => {
    const expected = readFileSync(new URL('test_with_orfs_identified_protein.faa', data), 'utf8');
    const records = biopythonParse(expected);
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (c: Buffer) => chunks.push(c));
    await writeFasta(records, { to: sink, lineWidth: 0 });
    expect(Buffer.concat(chunks).toString('utf8')).toBe(expected);
  });

  it('builds the title like Biopython', () => {
    expect(fastaTitle({ id: 'a', description: 'a some text', sequence: '' })).toBe('a some text');
    expect(fastaTitle({ id: 'a', description: 'other text', sequence: '' })).toBe('a other text');
    expect(fastaTitle({ id: 'a', description: 'ab c', sequence: '' })).toBe('a ab c'); // prefix, not first word
    expect(fastaTitle({ id: 'a', description: '', sequence: '' })).toBe('a');
    expect(fastaTitle({ id: 'a', sequence: '' })).toBe('a');
    expect(fastaTitle({ id: 'a\nb', description: 'x\ry', sequence: '' })).toBe('a b x y');
  });

  it('wraps at any width; an empty sequence has no sequence line when wrapping, an empty one when not', () => {
    expect(formatFastaRecord({ id: 'a', sequence: 'ABCDEFG' }, 3)).toBe('>a\nABC\nDEF\nG\n');
    expect(formatFastaRecord({ id: 'a', sequence: 'ABCDEF' }, 3)).toBe('>a\nABC\nDEF\n');
    expect(formatFastaRecord({ id: 'a', sequence: '' }, 60)).toBe('>a\n');
    expect(formatFastaRecord({ id: 'a', sequence: '' }, 0)).toBe('>a\n\n');
    expect(formatFastaRecord({ id: 'a', sequence: 'x'.repeat(61) })).toBe(`>a\n${'x'.repeat(60)}\nx\n`);
    expect(() => formatFastaRecord({ id: 'a', sequence: 'A' }, -1)).toThrow(RangeError);
    expect(() => formatFastaRecord({ id: 'a', sequence: 'A\nC' })).toThrow(/line break/);
  });

  it('round-trips many records through a file in several write blocks', async () => {
    const records = Array.from({ length: 3000 }, (_, i) => ({ id: `r${i}`, description: `r${i} d${i}`, sequence: 'ACGTN'.repeat(i % 97) }));
    const dir = mkdtempSync(join(tmpdir(), 'fasta-w-'));
    const out = join(dir, 'many.fa');
    await writeFasta(records, out, { lineWidth: 70 });
    expect(await all(out)).toEqual(records);
  });

  it('leaves no partial file when the record source fails, and keeps an existing target', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fasta-w-'));
    const out = join(dir, 'out.fa');
    writeFileSync(out, 'previous');
    async function* failing() {
      for (let i = 0; i < 5000; i++) yield { id: `r${i}`, sequence: 'A'.repeat(100) };
      throw new Error('upstream broke');
    }
    await expect(writeFasta(failing(), out)).rejects.toThrow('upstream broke');
    expect(readFileSync(out, 'utf8')).toBe('previous');
    expect(readdirSync(dir)).toEqual(['out.fa']);
    const writer = new FastaWriter(join(dir, 'aborted.fa'));
    await writer.write({ id: 'a', sequence: 'A' });
    await writer.abort();
    expect(existsSync(join(dir, 'aborted.fa'))).toBe(false);
    expect(readdirSync(dir)).toEqual(['out.fa']);
  });

  it('waits for a slow stream (backpressure) and does not end it unless asked', async () => {
    let written = 0;
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _enc, callback) {
        written += chunk.length;
        setTimeout(callback, 1);
      },
    });
    const writer = new FastaWriter(slow);
    let maxAhead = 0;
    let produced = 0;
    for (let i = 0; i < 2000; i++) {
      const record = { id: `r${i}`, sequence: 'A'.repeat(200) };
      produced += formatFastaRecord(record).length;
      await writer.write(record);
      maxAhead = Math.max(maxAhead, produced - written);
    }
    await writer.close();
    expect(maxAhead).toBeLessThan(200 * 1024);
    expect(slow.writableEnded).toBe(false);
  });
});
