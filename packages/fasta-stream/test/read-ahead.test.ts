import { describe, expect, it } from 'vitest';
import type { ByteSource } from '../src/byte-source.js';
import type { FastaScanner } from '../src/fasta-scanner.js';
import { ReadAhead } from '../src/read-ahead.js';
import { rng } from './helpers.js';

// ReadAhead keeps several positional reads in flight; a read that returns fewer bytes than asked (the end of
// the file, or a partial read as network file systems give) must not leave a gap before the later reads.

/** A file of `data` whose reads complete in random order and return at most `cap(position)` bytes. */
function flakySource(data: Uint8Array, next: () => number): ByteSource & { maxInFlight: number } {
  let inFlight = 0;
  const source = {
    concurrency: 3,
    maxInFlight: 0,
    async readAt(target: Uint8Array, position: number) {
      inFlight++;
      source.maxInFlight = Math.max(source.maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 3)));
      inFlight--;
      const partial = next() < 0.3 ? 1 + Math.floor(next() * target.length) : target.length;
      const n = Math.max(0, Math.min(partial, data.length - position));
      target.set(data.subarray(position, position + n));
      return n;
    },
    close: async () => undefined,
  };
  return source;
}

/** The scanner's window, reduced to what ReadAhead uses: bytes arrive at `filled`; a full window is emptied into `out`. */
function windowOf(capacity: number, chunk: number) {
  const bytes = new Uint8Array(capacity);
  const out: number[] = [];
  const window = {
    filled: 0,
    prepareWindow() {
      if (window.filled + chunk > capacity) {
        out.push(...bytes.subarray(0, window.filled));
        window.filled = 0;
      }
    },
    readTarget(i: number) {
      const at = window.filled + i * chunk;
      return at + chunk > capacity ? undefined : bytes.subarray(at, at + chunk);
    },
    taken: () => [...out, ...bytes.subarray(0, window.filled)],
  };
  return window;
}

describe('ReadAhead', () => {
  it('delivers every byte in order with partial reads and reads completing out of order', async () => {
    const next = rng(31);
    for (let trial = 0; trial < 60; trial++) {
      const data = Uint8Array.from({ length: Math.floor(next() * 5000) }, () => Math.floor(next() * 256));
      const chunk = 1 + Math.floor(next() * 300);
      const window = windowOf(chunk * (3 + Math.floor(next() * 6)), chunk);
      const source = flakySource(data, next);
      const reads = new ReadAhead(source, window as unknown as FastaScanner, 0);
      for (;;) {
        reads.fill();
        if ((await reads.next()) === 0) break;
      }
      expect(Uint8Array.from(window.taken())).toEqual(data);
      expect(reads.position).toBe(data.length);
      if (data.length > 3 * chunk) expect(source.maxInFlight).toBeGreaterThan(1);
    }
  });
});
