import { open } from 'node:fs/promises';
import { detectCompression, MAGIC_LENGTH, type Compression } from './compression.js';
import { FastaFormatError } from './fasta-format-error.js';

/** Anything readFasta can read: a path, a Node stream, or any async iterable of bytes/text. */
export type FastaSource = string | NodeJS.ReadableStream | AsyncIterable<Uint8Array | string>;

export interface DecodeOptions {
  /** Read size for paths, and decompressed chunk size (bytes). Bounds read-ahead. Default 1 MiB. */
  chunkSize?: number;
}

export interface DecodeProgress {
  /** Bytes taken from the source (compressed bytes for gzip input). */
  sourceBytes: number;
  compression: Compression | undefined;
}

export const DEFAULT_CHUNK_SIZE = 1024 * 1024;

/**
 * Yields the decompressed bytes of a source, pulling from it only as fast as the consumer asks
 * (async-iterator backpressure end to end), and closing it when the consumer stops early.
 */
export async function* decodedChunks(
  source: FastaSource,
  file: string,
  options: DecodeOptions,
  progress: DecodeProgress,
  position: () => { line: number; byte: number },
): AsyncGenerator<Buffer> {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const raw = rawChunks(source, chunkSize)[Symbol.asyncIterator]();
  try {
    const head = await readHead(raw, progress);
    const detected = detectCompression(head.bytes);
    if ('unsupported' in detected) {
      throw new FastaFormatError(file, 1, 0, `${detected.unsupported}-compressed input is not supported (only plain, gzip and BGZF)`);
    }
    progress.compression = detected.compression;
    if (detected.compression === 'none') {
      if (head.bytes.length > 0) yield head.bytes;
      if (!head.done) {
        for (let r = await raw.next(); !r.done; r = await raw.next()) {
          progress.sourceBytes += r.value.length;
          yield r.value;
        }
      }
      return;
    }
    yield* gunzipped(head.bytes, head.done ? undefined : raw, chunkSize, file, progress, position);
  } finally {
    await raw.return?.(undefined);
  }
}

async function readHead(raw: AsyncIterator<Buffer>, progress: DecodeProgress): Promise<{ bytes: Buffer; done: boolean }> {
  const parts: Buffer[] = [];
  let length = 0;
  while (length < MAGIC_LENGTH) {
    const r = await raw.next();
    if (r.done) return { bytes: Buffer.concat(parts), done: true };
    parts.push(r.value);
    length += r.value.length;
    progress.sourceBytes += r.value.length;
  }
  return { bytes: parts.length === 1 ? parts[0] : Buffer.concat(parts), done: false };
}

async function* gunzipped(
  head: Buffer,
  rest: AsyncIterator<Buffer> | undefined,
  chunkSize: number,
  file: string,
  progress: DecodeProgress,
  position: () => { line: number; byte: number },
): AsyncGenerator<Buffer> {
  // Loaded here, not at the top: programs that read plain files do not pay for loading them.
  const [{ createGunzip }, { Readable }] = await Promise.all([import('node:zlib'), import('node:stream')]);
  // Node's gunzip continues across concatenated members, which covers multi-member gzip and BGZF.
  const gunzip = createGunzip({ chunkSize: Math.max(chunkSize, 16 * 1024) });
  const input = Readable.from(
    (async function* () {
      yield head;
      if (!rest) return;
      for (let r = await rest.next(); !r.done; r = await rest.next()) {
        progress.sourceBytes += r.value.length;
        yield r.value;
      }
    })(),
    { objectMode: false, highWaterMark: chunkSize },
  );
  input.on('error', (error) => gunzip.destroy(error));
  input.pipe(gunzip);
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } catch (error) {
    if (error instanceof FastaFormatError || !isZlibError(error)) throw error;
    const { line } = position();
    const what = (error as NodeJS.ErrnoException).code === 'Z_BUF_ERROR' ? 'truncated gzip data' : 'corrupt gzip data';
    throw new FastaFormatError(file, line, undefined, `${what} (${(error as Error).message}) after compressed byte ${progress.sourceBytes}`, { cause: error });
  } finally {
    input.unpipe(gunzip);
    input.destroy();
    gunzip.destroy();
  }
}

function isZlibError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && code.startsWith('Z_');
}

async function* rawChunks(source: FastaSource, chunkSize: number): AsyncGenerator<Buffer> {
  if (typeof source === 'string') return yield* fileChunks(source, chunkSize);
  const iterable: AsyncIterable<unknown> = Symbol.asyncIterator in source
    ? (source as AsyncIterable<unknown>)
    : new (await import('node:stream')).Readable().wrap(source as NodeJS.ReadableStream);
  for await (const chunk of iterable) {
    if (typeof chunk === 'string') yield Buffer.from(chunk, 'utf8');
    else if (Buffer.isBuffer(chunk)) yield chunk;
    else if (chunk instanceof Uint8Array) yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    else throw new TypeError(`FASTA source yielded a ${typeof chunk}; expected bytes or text`);
  }
}

/**
 * Reads a file in `chunkSize` pieces, a fresh buffer each (gunzip may hold on to its input). Only compressed
 * files come this way: readFastaBlocks reads plain files itself, straight into the scanner's memory.
 */
async function* fileChunks(path: string, chunkSize: number): AsyncGenerator<Buffer> {
  const handle = await open(path, 'r');
  try {
    for (;;) {
      const buffer = Buffer.allocUnsafe(chunkSize);
      const { bytesRead } = await handle.read(buffer, 0, chunkSize, null);
      if (bytesRead === 0) return;
      yield bytesRead === chunkSize ? buffer : buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}
