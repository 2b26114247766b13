import { Readable, Transform } from 'node:stream';
import { createGzip } from 'node:zlib';
import { firstValueFrom, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { readFasta } from '@virnucpro/fasta-stream';
import { fasta$ } from '@virnucpro/fasta-stream/rxjs';

/** An endless-looking FASTA source (10 GB if fully read) that counts the bytes pulled from it. */
function hugeSource(): { stream: Readable; pulled: () => number } {
  let pulled = 0;
  let n = 0;
  const record = (i: number) => `>read${i} sample\n${'ACGT'.repeat(37)}AC\n`;
  const total = 10 * 1024 ** 3;
  const stream = new Readable({
    highWaterMark: 64 * 1024,
    read() {
      if (pulled >= total) return void this.push(null);
      let text = '';
      while (text.length < 16 * 1024) text += record(n++);
      pulled += text.length;
      this.push(text);
    },
  });
  return { stream, pulled: () => pulled };
}

const LIMIT = 2 * 1024 * 1024; // read-ahead allowed: a couple of chunks, nowhere near the file

describe('lazy reading', () => {
  it('readFasta: taking 3 records reads only a bounded prefix and closes the source', async () => {
    const { stream, pulled } = hugeSource();
    const ids: string[] = [];
    for await (const r of readFasta(stream, { chunkSize: 64 * 1024 })) {
      ids.push(r.id);
      if (ids.length === 3) break;
    }
    expect(ids).toEqual(['read0', 'read1', 'read2']);
    expect(pulled()).toBeLessThan(LIMIT);
    expect(stream.destroyed).toBe(true);
  });

  it('fasta$: take(3) reads only a bounded prefix, also through gzip', async () => {
    for (const gz of [false, true]) {
      const { stream, pulled } = hugeSource();
      let compressedRead = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, callback) {
          compressedRead += chunk.length;
          callback(null, chunk);
        },
      });
      const source = gz ? stream.pipe(createGzip({ level: 1 })).pipe(counter) : stream;
      const records = await firstValueFrom(fasta$(source, { chunkSize: 64 * 1024 }).pipe(take(3), toArray()));
      expect(records.map((r) => r.description)).toEqual(['read0 sample', 'read1 sample', 'read2 sample']);
      expect(records[2].sequence).toHaveLength(150);
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (!gz) expect(pulled()).toBeLessThan(LIMIT);
      // Through gzip the bound is on compressed bytes; this text compresses ~50x, so the plain
      // bytes behind them are more, but still a bounded prefix of the 10 GB.
      else {
        expect(compressedRead).toBeLessThan(LIMIT);
        expect(pulled()).toBeLessThan(64 * LIMIT);
      }
    }
  });

  it('a slow consumer does not make the reader run ahead', async () => {
    const { stream, pulled } = hugeSource();
    let seen = 0;
    for await (const _ of readFasta(stream, { chunkSize: 64 * 1024 })) {
      seen++;
      if (seen % 100 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      if (seen === 1000) break;
    }
    // 1000 records are ~170 kB; the reader may hold a few 64 kB chunks more, never megabytes.
    expect(pulled()).toBeLessThan(170_000 + LIMIT);
  });

  it('fasta$ is cold: nothing is read before subscribe', async () => {
    const { stream, pulled } = hugeSource();
    const records$ = fasta$(stream);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pulled()).toBe(0);
    const first = await firstValueFrom(records$);
    expect(first.id).toBe('read0');
  });
});
