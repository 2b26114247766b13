// safetensors reader: one positioned read for the header, then one read per
// tensor straight into that tensor's own (aligned) buffer. The file is never
// loaded whole, so a 10 GB checkpoint costs its tensors' memory and no more.
import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readExactly } from './file-io.js';
import { MAX_HEADER_BYTES, SAFETENSORS_DTYPES } from './safetensors-format.js';
import { bytesPerElement, elementCount, typedArrayFor, type DType, type TensorData } from './tensor-data.js';

export interface SafetensorsEntry {
  dtype: DType;
  shape: number[];
  /** Absolute byte offset of the tensor's data in the file. */
  fileOffset: number;
  byteLength: number;
}

export interface SafetensorsContents {
  tensors: Map<string, TensorData>;
  metadata: Record<string, string>;
}

export interface ReadSafetensorsOptions {
  /** Read only the tensors this accepts (others are skipped without reading their bytes). */
  filter?: (name: string) => boolean;
}

/** An open safetensors file: header parsed, tensors read on demand. Call close(). */
export class SafetensorsFile {
  private constructor(
    readonly path: string,
    readonly metadata: Record<string, string>,
    readonly entries: ReadonlyMap<string, SafetensorsEntry>,
    private readonly handle: FileHandle,
  ) {}

  static async open(path: string): Promise<SafetensorsFile> {
    const fh = await open(path, 'r');
    try {
      const size = (await fh.stat()).size;
      const { metadata, entries } = await readHeader(fh, path, size);
      return new SafetensorsFile(path, metadata, entries, fh);
    } catch (error) {
      await fh.close();
      throw error;
    }
  }

  get names(): string[] {
    return [...this.entries.keys()];
  }

  /**
   * One tensor's data, read now into fresh memory, or into `allocate(byteLength)`'s view of exactly that many bytes
   * (e.g. memory a GPU uploads from without a copy, cut from a larger buffer); its offset must be aligned for the
   * element type. The data is a view of those bytes.
   */
  async readTensor(name: string, allocate: (byteLength: number) => Uint8Array = (n) => new Uint8Array(n)): Promise<TensorData> {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`${this.path}: no tensor named "${name}"`);
    const bytes = allocate(entry.byteLength);
    if (bytes.byteLength !== entry.byteLength) throw new Error(`${this.path}: tensor "${name}": allocate(${entry.byteLength}) gave ${bytes.byteLength} bytes`);
    await readExactly(this.handle, bytes, entry.fileOffset, `${this.path}: tensor "${name}"`);
    const data = typedArrayFor(entry.dtype, bytes.buffer as ArrayBuffer, bytes.byteOffset, entry.byteLength / bytesPerElement(entry.dtype));
    return { dtype: entry.dtype, shape: [...entry.shape], data };
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

/**
 * Tensors read at once. One at a time, each read is one copy out of the page cache into fresh memory on one of
 * libuv's threads while the others idle: ESM-2 3B's 5.7 GB took 3.8 s that way on the GPU machine (2026-11-26),
 * before its first batch could start. Several in flight spread the copies over the thread pool.
 */
const READS_IN_FLIGHT = 8;

/** `read` of every name, at most READS_IN_FLIGHT at a time; results in the names' order. */
async function readAll<T>(names: readonly string[], read: (name: string) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(names.length);
  let next = 0;
  let failed = false;
  const reader = async () => {
    while (next < names.length && !failed) {
      const i = next++;
      try {
        results[i] = await read(names[i]);
      } catch (error) {
        failed = true; // the others stop too: the first error is the one reported
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READS_IN_FLIGHT, names.length) }, reader));
  return results;
}

export async function openSafetensors(path: string): Promise<SafetensorsFile> {
  return SafetensorsFile.open(path);
}

/**
 * Reads a `.safetensors` file, or a sharded checkpoint given its
 * `*.safetensors.index.json` (`{ metadata?, weight_map: { name: shardFile } }`).
 */
export async function readSafetensors(path: string, options: ReadSafetensorsOptions = {}): Promise<SafetensorsContents> {
  if (path.endsWith('.json')) return readShardedSafetensors(path, options);
  const file = await SafetensorsFile.open(path);
  try {
    const names = file.names.filter((name) => !options.filter || options.filter(name));
    const read = await readAll(names, (name) => file.readTensor(name));
    const tensors = new Map<string, TensorData>(names.map((name, i) => [name, read[i]]));
    return { tensors, metadata: { ...file.metadata } };
  } finally {
    await file.close();
  }
}

/** Reads every shard named by a `model.safetensors.index.json`; tensor names must be unique across shards. */
export async function readShardedSafetensors(indexPath: string, options: ReadSafetensorsOptions = {}): Promise<SafetensorsContents> {
  let index: unknown;
  try {
    index = JSON.parse(await readFile(indexPath, 'utf8'));
  } catch (error) {
    throw new Error(`${indexPath}: not a readable safetensors index JSON (${(error as Error).message})`);
  }
  const weightMap = (index as { weight_map?: unknown }).weight_map;
  if (!weightMap || typeof weightMap !== 'object') throw new Error(`${indexPath}: expected a "weight_map" object`);
  const shards = new Set<string>();
  for (const [name, shard] of Object.entries(weightMap as Record<string, unknown>)) {
    if (typeof shard !== 'string' || shard.includes('/') || shard.includes('\\')) {
      throw new Error(`${indexPath}: weight_map["${name}"] must be a shard file name beside the index, got ${JSON.stringify(shard)}`);
    }
    shards.add(shard);
  }
  const tensors = new Map<string, TensorData>();
  const metadata: Record<string, string> = {};
  for (const shard of shards) {
    const shardPath = join(dirname(indexPath), shard);
    await stat(shardPath).catch(() => {
      throw new Error(`${indexPath}: shard ${shard} is missing (${shardPath})`);
    });
    const part = await readSafetensors(shardPath, options);
    Object.assign(metadata, part.metadata);
    for (const [name, t] of part.tensors) {
      if (tensors.has(name)) throw new Error(`${shardPath}: tensor "${name}" also appears in another shard`);
      tensors.set(name, t);
    }
  }
  const indexMeta = (index as { metadata?: Record<string, unknown> }).metadata;
  if (indexMeta && typeof indexMeta === 'object') {
    for (const [k, v] of Object.entries(indexMeta)) metadata[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return { tensors, metadata };
}

async function readHeader(fh: FileHandle, path: string, fileSize: number) {
  if (fileSize < 8) throw new Error(`${path}: not a safetensors file (${fileSize} bytes; needs an 8-byte header length)`);
  const lengthBytes = new Uint8Array(8);
  await readExactly(fh, lengthBytes, 0, path);
  const headerLength = new DataView(lengthBytes.buffer).getBigUint64(0, true);
  if (headerLength > BigInt(Math.min(MAX_HEADER_BYTES, fileSize - 8))) {
    throw new Error(`${path}: not a safetensors file (header length ${headerLength} exceeds the file size ${fileSize} or the 100 MB limit)`);
  }
  const headerBytes = new Uint8Array(Number(headerLength));
  await readExactly(fh, headerBytes, 8, path);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(headerBytes));
  } catch (error) {
    throw new Error(`${path}: safetensors header is not valid UTF-8 JSON (${(error as Error).message})`);
  }
  if (!header || typeof header !== 'object' || Array.isArray(header)) throw new Error(`${path}: safetensors header must be a JSON object`);
  const dataStart = 8 + headerBytes.length;
  const dataSize = fileSize - dataStart;
  const metadata: Record<string, string> = {};
  const entries = new Map<string, SafetensorsEntry>();
  for (const [name, value] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') {
      for (const [k, v] of Object.entries((value ?? {}) as Record<string, unknown>)) {
        if (typeof v !== 'string') throw new Error(`${path}: __metadata__["${k}"] must be a string`);
        metadata[k] = v;
      }
      continue;
    }
    entries.set(name, parseEntry(path, name, value, dataStart, dataSize));
  }
  return { metadata, entries };
}

function parseEntry(path: string, name: string, value: unknown, dataStart: number, dataSize: number): SafetensorsEntry {
  const where = `${path}: tensor "${name}"`;
  const info = value as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
  if (!info || typeof info !== 'object') throw new Error(`${where}: expected {dtype, shape, data_offsets}`);
  const dtype = typeof info.dtype === 'string' ? SAFETENSORS_DTYPES[info.dtype] : undefined;
  if (!dtype) {
    throw new Error(`${where}: unsupported dtype ${JSON.stringify(info.dtype)} (supported: ${Object.keys(SAFETENSORS_DTYPES).join(', ')})`);
  }
  const shape = info.shape;
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw new Error(`${where}: shape must be an array of non-negative integers, got ${JSON.stringify(shape)}`);
  }
  const offsets = info.data_offsets;
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0)) {
    throw new Error(`${where}: data_offsets must be [begin, end], got ${JSON.stringify(offsets)}`);
  }
  const [begin, end] = offsets as [number, number];
  const expected = elementCount(shape) * bytesPerElement(dtype);
  if (end < begin || end - begin !== expected) {
    throw new Error(`${where}: data_offsets [${begin}, ${end}] hold ${end - begin} bytes, but ${dtype} [${shape}] needs ${expected}`);
  }
  if (end > dataSize) throw new Error(`${where}: data_offsets end ${end} is past the data block (${dataSize} bytes; file truncated?)`);
  return { dtype, shape: shape as number[], fileOffset: dataStart + begin, byteLength: expected };
}
