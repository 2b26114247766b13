import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';

const GT = 0x3e;
const AT = 0x40;
const LF = 0x0a;
const CR = 0x0d;

/**
 * 1-based line number of the header of the `recordNumber`-th record (1-based) of a FASTA or FASTQ file (FASTQ
 * when the text starts with '@', as the reader decides: its headers are the first of each 4 non-blank lines),
 * counting line breaks as the reader does (LF, CRLF, lone CR); gzip input is decompressed. Only used to word an error
 * message, so the normal read path never pays for line bookkeeping. Undefined if the file has fewer records.
 */
export async function recordHeaderLine(path: string, recordNumber: number): Promise<number | undefined> {
  // A pipe or FIFO cannot be read a second time (and would block): then the message goes without a line.
  if (!(await stat(path).then((s) => s.isFile(), () => false))) return undefined;
  const raw = createReadStream(path);
  const head = await firstBytes(path);
  const stream = head[0] === 0x1f && head[1] === 0x8b ? raw.pipe(createGunzip()) : raw;
  let line = 1;
  let atLineStart = true;
  let previousCR = false;
  let headers = 0;
  let fastq: boolean | undefined;
  /** FASTQ: which line of its record the next non-blank line is (0 = the '@' header). */
  let slot = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i];
        if (b === LF) {
          if (!previousCR) line++;
          atLineStart = true;
          previousCR = false;
          continue;
        }
        if (previousCR) atLineStart = true; // a lone CR ended the previous line
        previousCR = b === CR;
        if (b === CR) {
          line++;
          continue;
        }
        if (fastq === undefined) {
          if (isByteOrderMark(b)) continue; // the reader skips it: the line still starts after it
          fastq = b === AT;
        }
        if (atLineStart) {
          if (fastq ? slot === 0 : b === GT) {
            if (++headers === recordNumber) return line;
          }
          if (fastq) slot = (slot + 1) & 3;
        }
        atLineStart = false;
      }
    }
  } finally {
    raw.destroy();
    if (stream !== raw) stream.destroy();
  }
  return undefined;
}

/** A byte of the UTF-8 byte-order mark EF BB BF, which the reader skips before deciding FASTA or FASTQ. */
function isByteOrderMark(b: number): boolean {
  return b === 0xef || b === 0xbb || b === 0xbf;
}

async function firstBytes(path: string): Promise<Buffer> {
  for await (const chunk of createReadStream(path, { start: 0, end: 1 })) return chunk as Buffer;
  return Buffer.alloc(0);
}
