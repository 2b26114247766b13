import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';

const GT = 0x3e;
const LF = 0x0a;
const CR = 0x0d;

/**
 * 1-based line number of the header of the `recordNumber`-th record (1-based) of a FASTA file, counting line
 * breaks as the reader does (LF, CRLF, lone CR); gzip input is decompressed. Only used to word an error
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
        if (atLineStart && b === GT && ++headers === recordNumber) return line;
        atLineStart = false;
      }
    }
  } finally {
    raw.destroy();
    if (stream !== raw) stream.destroy();
  }
  return undefined;
}

async function firstBytes(path: string): Promise<Buffer> {
  for await (const chunk of createReadStream(path, { start: 0, end: 1 })) return chunk as Buffer;
  return Buffer.alloc(0);
}
