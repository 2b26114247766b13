import { close, open, read } from 'node:fs';

/** Reads of an input into a caller's buffer. */
export interface ByteSource {
  /** Reads up to target.length bytes starting at source offset `position`; 0 at the end. */
  readAt(target: Uint8Array, position: number): Promise<number>;
  /** Reads that may be in flight at once (at increasing positions); 1 for sources read in order only. */
  readonly concurrency: number;
  close(): Promise<void>;
}

/**
 * Reads of a file in flight at once. Node runs each on its thread pool: while the scanner works on one
 * chunk the kernel copies the next ones, so reading keeps up with a scanner faster than one copy thread
 * (measured in docs/benchmarks/fasta.md: 3 in flight beat 1 by ~10 ms per 300 MB).
 */
export const FILE_READS_IN_FLIGHT = 3;

/**
 * A plain file read straight into the caller's buffer (no intermediate copy), by position. Uses the
 * callback API: issuing a read costs the main thread about a third less than FileHandle.read.
 */
export async function fileByteSource(path: string): Promise<ByteSource> {
  const fd = await new Promise<number>((resolve, reject) => open(path, 'r', (error, fd) => (error ? reject(error) : resolve(fd))));
  return {
    readAt: (target, position) =>
      new Promise<number>((resolve, reject) =>
        read(fd, target, 0, target.length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))),
      ),
    concurrency: FILE_READS_IN_FLIGHT,
    close: () => new Promise<void>((resolve, reject) => close(fd, (error) => (error ? reject(error) : resolve()))),
  };
}

/** Chunks from an async iterator (e.g. gunzip output), copied into the caller's buffer, in order. */
export function chunkByteSource(chunks: AsyncIterator<Uint8Array>): ByteSource {
  let current: Uint8Array | undefined;
  let offset = 0;
  let delivered = 0;
  return {
    async readAt(target, position) {
      if (position !== delivered) throw new Error(`internal: sequential source read at ${position}, expected ${delivered}`);
      while (current === undefined || offset === current.length) {
        const next = await chunks.next();
        if (next.done) return 0;
        current = next.value;
        offset = 0;
      }
      const n = Math.min(target.length, current.length - offset);
      target.set(current.subarray(offset, offset + n));
      offset += n;
      delivered += n;
      return n;
    },
    concurrency: 1,
    async close() {
      await chunks.return?.(undefined);
    },
  };
}
