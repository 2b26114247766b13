// safetensors writer, laid out like the reference (Rust/Python) writer:
// tensors ordered by dtype rank (the Rust `Dtype` enum, which is in increasing
// alignment order; largest first) then name, so every tensor starts aligned to
// its element size; compact JSON header with __metadata__ first, padded with
// spaces to a multiple of 8 bytes. Same tensors + metadata → the same bytes
// as `safetensors.torch.save_file`.
import { endianness } from 'node:os';
import { writeFileAtomic } from '@virnucpro/atomic-file';
import { SAFETENSORS_CODES } from './safetensors-format.js';
import { assertTensorConsistent, bytesPerElement, elementCount, tensorBytes, type DType, type TensorData } from './tensor-data.js';

// Order of safetensors' Rust `Dtype` enum (increasing alignment).
const DTYPE_RANK: Record<DType, number> = {
  bool: 0,
  uint8: 1,
  int8: 2,
  int16: 3,
  uint16: 4,
  float16: 5,
  bfloat16: 6,
  int32: 7,
  uint32: 8,
  float32: 9,
  float64: 10,
  int64: 11,
  uint64: 12,
};

export type TensorCollection = Map<string, TensorData> | Record<string, TensorData>;

/** What a safetensors header says about one tensor: its data may not exist yet (a file written in a stream). */
export type TensorLayout = Pick<TensorData, 'dtype' | 'shape'>;

export function tensorEntries<T extends TensorLayout>(tensors: Map<string, T> | Record<string, T>): [string, T][] {
  return tensors instanceof Map ? [...tensors.entries()] : Object.entries(tensors);
}

/**
 * Builds the header bytes and the tensor order (the order their data must follow the header in), without
 * touching the disk. Takes layouts, so a writer that streams the data can write the header last.
 */
export function encodeSafetensorsHeader<T extends TensorLayout>(
  tensors: Map<string, T> | Record<string, T>,
  metadata?: Record<string, string>,
): { header: Uint8Array; order: [string, T][] } {
  const order = tensorEntries(tensors);
  for (const [name] of order) {
    if (name === '__metadata__') throw new Error('"__metadata__" is reserved and cannot be a tensor name');
  }
  order.sort(([an, a], [bn, b]) => DTYPE_RANK[b.dtype] - DTYPE_RANK[a.dtype] || (an < bn ? -1 : an > bn ? 1 : 0));
  const json: Record<string, unknown> = {};
  if (metadata && Object.keys(metadata).length > 0) {
    for (const [k, v] of Object.entries(metadata)) {
      if (typeof v !== 'string') throw new Error(`safetensors metadata "${k}" must be a string, got ${typeof v}`);
    }
    json.__metadata__ = metadata;
  }
  let offset = 0;
  for (const [name, t] of order) {
    const length = elementCount(t.shape) * bytesPerElement(t.dtype);
    json[name] = { dtype: SAFETENSORS_CODES[t.dtype], shape: t.shape, data_offsets: [offset, offset + length] };
    offset += length;
  }
  const text = JSON.stringify(json);
  const body = new TextEncoder().encode(text);
  const padded = Math.ceil(body.length / 8) * 8;
  const header = new Uint8Array(8 + padded).fill(0x20, 8);
  new DataView(header.buffer).setBigUint64(0, BigInt(padded), true);
  header.set(body, 8);
  return { header, order };
}

/** Writes tensors (+ string metadata) to `path` atomically: temp file, fsync, rename. */
export async function writeSafetensors(path: string, tensors: TensorCollection, metadata?: Record<string, string>): Promise<void> {
  // Typed arrays are host-endian; safetensors is little-endian.
  if (endianness() !== 'LE') throw new Error('writeSafetensors: big-endian hosts are not supported');
  for (const [name, t] of tensorEntries(tensors)) assertTensorConsistent(name, t);
  const { header, order } = encodeSafetensorsHeader(tensors, metadata);
  await writeFileAtomic(path, async (file) => {
    await file.write(header);
    for (const [, t] of order) await file.write(tensorBytes(t));
  });
}
