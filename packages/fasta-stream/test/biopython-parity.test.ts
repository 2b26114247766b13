import { describe, expect, it } from 'vitest';
import { biopythonParse } from './biopython-oracle.js';
import { chunkedStream, collect, rng } from './helpers.js';

// Pieces that exercise every rule of Biopython's parser: headers with odd whitespace, lone '>',
// empty records, CRLF / lone CR line ends, blank lines, spaces and tabs inside sequence lines,
// trailing non-ASCII whitespace, ';' lines (sequence text for "fasta"), text before the first record.
const PIECES = [
  '>', '>seq1', '> lead space', '>id\tdesc with  spaces ', '>x\u00a0y', '>\u3000wide', '>dup',
  'ACGT', 'acgtn', 'MKV*', 'AC GT', 'AC\tGT', '   ', '', ';comment line', 'NNNN\u00a0', 'A\u2003',
  'ÄÖ', '>>double', 'X>Y', '#hash',
];
const BREAKS = ['\n', '\r\n', '\r', '\n\n', '\r\r\n'];

function randomFasta(next: () => number): string {
  const parts: string[] = [];
  const lines = Math.floor(next() * 30);
  for (let i = 0; i < lines; i++) {
    parts.push(PIECES[Math.floor(next() * PIECES.length)]);
    if (i < lines - 1 || next() < 0.7) parts.push(BREAKS[Math.floor(next() * BREAKS.length)]);
  }
  return parts.join('');
}

describe('records equal Biopython SeqIO.parse(…, "fasta")', () => {
  it('on 400 random files fed in random chunk sizes', async () => {
    const next = rng(20261121);
    for (let trial = 0; trial < 400; trial++) {
      const text = randomFasta(next);
      const bytes = Buffer.from(text, 'utf8');
      const sizes = [1 + Math.floor(next() * 7), 1 + Math.floor(next() * 40), 1 + Math.floor(next() * 3)];
      const got = await collect(chunkedStream(bytes, sizes));
      expect(got, JSON.stringify(text)).toEqual(biopythonParse(text));
    }
  });

  it('on long random files (multi-line records, both parsing paths) in random chunk sizes', async () => {
    const next = rng(7);
    const letters = 'ACGTNacgt';
    for (let trial = 0; trial < 60; trial++) {
      const parts: string[] = [];
      const records = 1 + Math.floor(next() * 20);
      for (let r = 0; r < records; r++) {
        parts.push(`>rec${r} some description\n`);
        const lines = Math.floor(next() * 40);
        for (let l = 0; l < lines; l++) {
          let line = '';
          const width = Math.floor(next() * 90);
          for (let k = 0; k < width; k++) line += letters[Math.floor(next() * letters.length)];
          // now and then an oddity that forces the exact path inside an otherwise plain record
          if (next() < 0.03) line += [' ', '\t', '\r', ' A', '\u00a0', ';x'][Math.floor(next() * 6)];
          parts.push(line, next() < 0.02 ? '\r\n' : '\n');
        }
      }
      const text = parts.join('');
      const sizes = [1 + Math.floor(next() * 5000), 1 + Math.floor(next() * 300)];
      expect(await collect(chunkedStream(Buffer.from(text, 'utf8'), sizes))).toEqual(biopythonParse(text));
    }
  });

  it('on a file fed one byte at a time', async () => {
    const text = 'junk\n>a b\r\nAC GT\r\nac\r>b\n\n>\nTT\t \n';
    const got = await collect(chunkedStream(Buffer.from(text), [1]));
    expect(got).toEqual(biopythonParse(text));
    expect(got.map((r) => r.sequence)).toEqual(['ACGTac', '', 'TT']);
  });
});
