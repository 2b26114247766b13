import { Readable } from 'node:stream';
import { readFasta, type FastaRecord, type ReadFastaOptions } from '@virnucpro/fasta-stream';

/** A stream that delivers `bytes` cut at the given sizes (to test chunk-boundary handling). */
export function chunkedStream(bytes: Buffer, sizes: number[]): Readable {
  const parts: Buffer[] = [];
  let pos = 0;
  let k = 0;
  while (pos < bytes.length) {
    const size = Math.max(1, sizes[k++ % sizes.length]);
    parts.push(bytes.subarray(pos, pos + size));
    pos += size;
  }
  return Readable.from(parts, { objectMode: true });
}

export async function collect(source: Parameters<typeof readFasta>[0], options?: ReadFastaOptions): Promise<FastaRecord[]> {
  const out: FastaRecord[] = [];
  for await (const r of readFasta(source, options)) out.push(r);
  return out;
}

/** Deterministic PRNG (mulberry32) so fuzz failures reproduce. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
