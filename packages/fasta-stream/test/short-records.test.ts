import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readFastaBatches, FastaFormatError } from '@virnucpro/fasta-stream';
import { biopythonParse } from './biopython-oracle.js';
import { chunkedStream, collect, rng } from './helpers.js';

// The short-record fast path (reads cut from one string per chunk) against the Biopython oracle:
// single- and multi-line short records, empty sequences, blank lines, headers with/without spaces,
// trailing/leading header spaces, spaces in sequence lines (fallback), records across chunk ends.
function randomReads(next: () => number, records: number): string {
  const letters = 'ACGTNacgt';
  const headers = ['read_%', 'read_% pos=12', ' lead%', 'r% trailing ', 'a%  b', '', 'x% y z'];
  const parts: string[] = [];
  for (let r = 0; r < records; r++) {
    parts.push('>', headers[Math.floor(next() * headers.length)].replace('%', String(r)), '\n');
    const lines = next() < 0.7 ? 1 : Math.floor(next() * 4);
    for (let l = 0; l < lines; l++) {
      let line = '';
      const width = next() < 0.05 ? 0 : 1 + Math.floor(next() * 200);
      for (let k = 0; k < width; k++) line += letters[Math.floor(next() * letters.length)];
      if (next() < 0.02) line += ' A ';
      parts.push(line, '\n');
    }
  }
  if (next() < 0.5) parts.push('>last\nACGT'); // no final newline
  return parts.join('');
}

const dir = mkdtempSync(join(tmpdir(), 'fasta-short-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('short records (reads fast path)', () => {
  it('equal Biopython in random chunk sizes', async () => {
    const next = rng(150);
    for (let trial = 0; trial < 40; trial++) {
      const text = randomReads(next, 1 + Math.floor(next() * 300));
      const sizes = [1 + Math.floor(next() * 20000), 1 + Math.floor(next() * 500), 1 + Math.floor(next() * 64 * 1024)];
      expect(await collect(chunkedStream(Buffer.from(text), sizes)), JSON.stringify(text.slice(0, 200))).toEqual(biopythonParse(text));
    }
  });

  it('equal Biopython when read from a multi-MB path (default chunk size) and in batches', async () => {
    const next = rng(7150);
    const text = randomReads(next, 40000);
    const file = join(dir, 'reads.fa');
    writeFileSync(file, text);
    const expected = biopythonParse(text);
    expect(await collect(file)).toEqual(expected);
    const flat = [];
    for await (const batch of readFastaBatches(file, { chunkSize: 300 * 1024 })) flat.push(...batch);
    expect(flat).toEqual(expected);
  });

  it('keeps line numbers right for errors after short records', async () => {
    const text = '>a x\nACGT\n>b\n\n>c\nAC\nGT\n>d\nAC\u0000GT\n';
    const error = await collect(chunkedStream(Buffer.from(text), [1 << 16])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FastaFormatError);
    expect(String((error as Error).message)).toMatch(/line 9\b/);
  });
});
