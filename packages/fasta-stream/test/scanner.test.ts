import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { FastaFormatError, readFastaBlocks, type FastaBlock, type FastaRecord, type ReadFastaOptions } from '@virnucpro/fasta-stream';
import { RecordBlock } from '../src/fasta-block.js';
import { biopythonParse } from './biopython-oracle.js';
import { chunkedStream, rng } from './helpers.js';

// The WebAssembly scanner (readFastaBlocks) against the Biopython oracle: inputs it handles itself (LF line
// ends, ASCII, blanks only in headers) and inputs where it hands over to the general parser part-way.
const dir = mkdtempSync(join(tmpdir(), 'fasta-scan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;
function tempFile(bytes: Buffer): string {
  const path = join(dir, `f${fileNo++}.fa`);
  writeFileSync(path, bytes);
  return path;
}

const CLEAN_HEADERS = ['>', '>seq1', '>id\tdesc with  spaces ', '>>double', '>a b\t', '>x', `>long ${'desc_0123456789 '.repeat(5)}\tend`];
const CLEAN_LINES = ['ACGT', 'acgtn', 'MKV*', 'X>Y', ';comment', '#hash', '', 'N'.repeat(70), 'ACGTTGCA'.repeat(9), '@-.~{0!'];
const ODD = ['AC GT', 'AC\tGT', 'A\r\nC', 'A\rC', 'ÄÖ', 'NN\u00a0', ' lead', 'T\x0bT'];
const ODD_HEADERS = ['>Äpfel', '>a\x01b', '>x\x7fy', '>a\rb', `>${'long '.repeat(10)}\u00a0`];

function cleanFasta(next: () => number, records: number): string {
  const parts: string[] = [];
  for (let r = 0; r < records; r++) {
    parts.push(CLEAN_HEADERS[Math.floor(next() * CLEAN_HEADERS.length)], '\n');
    const lines = Math.floor(next() * 6);
    for (let i = 0; i < lines; i++) parts.push(CLEAN_LINES[Math.floor(next() * CLEAN_LINES.length)], '\n');
  }
  const text = parts.join('');
  return next() < 0.3 ? text.replace(/\n$/, '') : text;
}

interface Read {
  records: FastaRecord[];
  lengths: number[];
  /** block.sequence(i) for every record (made one by one: LFs squeezed out in WebAssembly). */
  sequences: string[];
  blocks: FastaBlock[];
}

async function readAll(source: Parameters<typeof readFastaBlocks>[0], options?: ReadFastaOptions): Promise<Read> {
  const read: Read = { records: [], lengths: [], sequences: [], blocks: [] };
  for await (const block of readFastaBlocks(source, options)) {
    read.blocks.push(block);
    for (let i = 0; i < block.length; i++) read.lengths.push(block.sequenceLength(i));
    for (let i = 0; i < block.length; i++) read.sequences.push(block.sequence(i));
    read.records.push(...block.records());
  }
  return read;
}

describe('readFastaBlocks (WebAssembly scanner)', () => {
  it('equals Biopython on clean files, from streams in random chunk sizes and from paths with small reads', async () => {
    const next = rng(424242);
    for (let trial = 0; trial < 300; trial++) {
      const text = cleanFasta(next, 1 + Math.floor(next() * 40));
      const expected = biopythonParse(text);
      const bytes = Buffer.from(text, 'latin1');
      const sizes = [1 + Math.floor(next() * 7), 1 + Math.floor(next() * 100), 1 + Math.floor(next() * 3)];
      const fromStream = await readAll(chunkedStream(bytes, sizes), { chunkSize: 1 + Math.floor(next() * 200) });
      expect(fromStream.records, JSON.stringify(text)).toEqual(expected);
      expect(fromStream.lengths).toEqual(expected.map((r) => r.sequence.length));
      expect(fromStream.sequences).toEqual(expected.map((r) => r.sequence));
      const fromPath = await readAll(tempFile(bytes), { chunkSize: 1 + Math.floor(next() * 300) });
      expect(fromPath.records, JSON.stringify(text)).toEqual(expected);
      expect(fromPath.lengths).toEqual(expected.map((r) => r.sequence.length));
      // Clean input never reaches the general parser (which would give the same records, only slower).
      expect([...fromStream.blocks, ...fromPath.blocks].some((b) => b instanceof RecordBlock), JSON.stringify(text)).toBe(false);
    }
  });

  it('equals Biopython on read sets (one-line records of one length) with the odd record of another shape', async () => {
    // The scanner crosses such records one after another; every way a record can break the pattern.
    const next = rng(777);
    const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
    const residues = (n: number) => Array.from({ length: n }, () => pick(['A', 'C', 'G', 'T', 'n'])).join('');
    for (let trial = 0; trial < 200; trial++) {
      const length = 1 + Math.floor(next() * (next() < 0.5 ? 20 : 200));
      const parts: string[] = [];
      const records = 1 + Math.floor(next() * 60);
      for (let r = 0; r < records; r++) {
        parts.push(`>r${r}${next() < 0.3 ? ' desc=' + residues(Math.floor(next() * 40)) : ''}\n`);
        const seq = residues(length);
        const odd = next();
        if (odd < 0.75) parts.push(seq, '\n');
        else if (odd < 0.8) parts.push(residues(length + 1), '\n');
        else if (odd < 0.85) parts.push(residues(Math.max(0, length - 1)), '\n');
        else if (odd < 0.88) parts.push(seq.slice(0, length >> 1), '\n', seq.slice(length >> 1), '\n');
        else if (odd < 0.91) parts.push(`${seq.slice(0, -1)}*`, '\n');
        else if (odd < 0.93) parts.push(`${seq.slice(0, -1)}>`, '\n');
        else if (odd < 0.95) parts.push('');
        else if (odd < 0.97) parts.push(seq, '\n', '\n');
        else if (odd < 0.985 && length > 1) {
          // Two lines whose bytes, LF included, are as many as one read's line: only the bytes tell them apart.
          const cut = 1 + Math.floor(next() * (length - 1));
          parts.push(seq.slice(0, cut), '\n', seq.slice(cut, length - 1), '\n');
        }
        else parts.push(seq, '\n', seq, '\n');
      }
      const text = next() < 0.3 ? parts.join('').replace(/\n$/, '') : parts.join('');
      const expected = biopythonParse(text);
      const bytes = Buffer.from(text);
      for (const read of [
        await readAll(tempFile(bytes), { chunkSize: 1 + Math.floor(next() * 4000) }),
        await readAll(chunkedStream(bytes, [1 + Math.floor(next() * 500)]), { chunkSize: 64 + Math.floor(next() * 1000) }),
      ]) {
        expect(read.records, JSON.stringify(text)).toEqual(expected);
        expect(read.lengths).toEqual(expected.map((r) => r.sequence.length));
        expect(read.sequences).toEqual(expected.map((r) => r.sequence));
        expect(read.blocks.some((b) => b instanceof RecordBlock)).toBe(false);
      }
    }
  });

  it('hands over to the general parser at the record with odd bytes (sequence or header), with the same records', async () => {
    const next = rng(99);
    for (let trial = 0; trial < 300; trial++) {
      const head = cleanFasta(next, 1 + Math.floor(next() * 30));
      const oddRecord =
        next() < 0.3 ? `${ODD_HEADERS[Math.floor(next() * ODD_HEADERS.length)]}\nACGT\n` : `>odd\n${ODD[Math.floor(next() * ODD.length)]}\n`;
      const text = `${head}${head.endsWith('\n') || head === '' ? '' : '\n'}${oddRecord}${cleanFasta(next, 5)}`;
      const bytes = Buffer.from(text, 'utf8');
      const { records } = await readAll(chunkedStream(bytes, [1 + Math.floor(next() * 50)]), { chunkSize: 16 + Math.floor(next() * 100) });
      expect(records, JSON.stringify(text)).toEqual(biopythonParse(text));
      const fromPath = await readAll(tempFile(bytes), { chunkSize: 8 + Math.floor(next() * 100) });
      expect(fromPath.records, JSON.stringify(text)).toEqual(biopythonParse(text));
    }
  });

  it('scans clean input itself: its blocks refuse use after the next block is requested', async () => {
    const text = Array.from({ length: 2000 }, (_, i) => `>r${i} x\n${'ACGT'.repeat(30)}\n`).join('');
    const it = readFastaBlocks(chunkedStream(Buffer.from(text), [4096]), { chunkSize: 4096 })[Symbol.asyncIterator]();
    const first = (await it.next()).value as FastaBlock;
    expect(first.id(0)).toBe('r0');
    await it.next();
    expect(() => first.sequence(0)).toThrow(/after the next block/);
    await it.return?.(undefined);
  });

  it('keeps multi-megabyte multi-line records whole across many reads (window moves and grows)', async () => {
    const next = rng(5);
    const line = () => Array.from({ length: 60 + Math.floor(next() * 20) }, () => 'ACGTN'[Math.floor(next() * 5)]).join('');
    const parts: string[] = [];
    for (let r = 0; r < 3; r++) {
      parts.push(`>chr${r} genome ${r}\n`);
      const lines = r === 1 ? 90000 : 3000 + Math.floor(next() * 1000); // record 1: ~6 MB
      for (let i = 0; i < lines; i++) parts.push(line(), '\n');
    }
    const text = parts.join('');
    const expected = biopythonParse(text);
    const path = tempFile(Buffer.from(text));
    for (const chunkSize of [1000, 65536]) {
      const read = await readAll(path, { chunkSize });
      expect(read.records.map((r) => r.id)).toEqual(['chr0', 'chr1', 'chr2']);
      expect(read.records).toEqual(expected);
      expect(read.lengths).toEqual(expected.map((r) => r.sequence.length));
    }
    const gz = tempFile(gzipSync(text));
    expect((await readAll(gz, { chunkSize: 5000 })).records).toEqual(expected);
  });

  it('counts line feeds that fall in the same vector lane line after line (16-byte lines)', async () => {
    // Every 16th byte an LF: the scanner's per-lane counters see one LF per vector for thousands of blocks.
    const text = `>a\n${'ACGTACGTACGTACG\n'.repeat(20000)}>b\n${'ACGTACGTACGTACG\n'.repeat(300)}`;
    const expected = biopythonParse(text);
    for (const chunkSize of [1 << 20, 4000]) {
      const read = await readAll(tempFile(Buffer.from(text)), { chunkSize });
      expect(read.lengths).toEqual([300000, 4500]);
      expect(read.records).toEqual(expected);
    }
  });

  it('reports binary input at the right line after many scanned records', async () => {
    // Multi-line records (walked block by block) and reads (crossed record to record) before the bad one.
    for (const [clean, line] of [
      [Array.from({ length: 500 }, (_, i) => `>r${i}\nACGT\nGG\n`).join(''), 1502],
      [Array.from({ length: 500 }, (_, i) => `>r${i}\n${'ACGT'.repeat(20)}\n`).join(''), 1002],
    ] as const) {
      const bytes = Buffer.from(`${clean}>bad\nAC\0GT\n`);
      for (const source of [tempFile(bytes), chunkedStream(bytes, [777])]) {
        const error = await readAll(source, { chunkSize: 1000 }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(FastaFormatError);
        expect((error as FastaFormatError).line).toBe(line);
        expect((error as FastaFormatError).byte).toBe(clean.length + 7);
      }
    }
  });
});
