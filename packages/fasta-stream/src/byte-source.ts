import { open, type FileHandle } from 'node:fs/promises';

/** Fills a caller's buffer with the next bytes of an input; 0 at the end. */
export interface ByteSource {
  readInto(target: Uint8Array): Promise<number>;
  close(): Promise<void>;
}

/** A plain file read straight into the caller's buffer (no intermediate copy). */
export async function fileByteSource(path: string): Promise<ByteSource> {
  const handle: FileHandle = await open(path, 'r');
  return {
    readInto: async (target) => (await handle.read(target, 0, target.length, null)).bytesRead,
    close: () => handle.close(),
  };
}

/** Chunks from an async iterator (e.g. gunzip output), copied into the caller's buffer. */
export function chunkByteSource(chunks: AsyncIterator<Uint8Array>): ByteSource {
  let current: Uint8Array | undefined;
  let offset = 0;
  return {
    async readInto(target) {
      while (current === undefined || offset === current.length) {
        const next = await chunks.next();
        if (next.done) return 0;
        current = next.value;
        offset = 0;
      }
      const n = Math.min(target.length, current.length - offset);
      target.set(current.subarray(offset, offset + n));
      offset += n;
      return n;
    },
    async close() {
      await chunks.return?.(undefined);
    },
  };
}
