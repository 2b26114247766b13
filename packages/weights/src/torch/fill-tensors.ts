// Gives every rebuilt tensor its elements once the pickle has been parsed.
import { endianness } from 'node:os';
import { bytesPerElement, elementCount, typedArrayFor, type TypedArray } from '../tensor-data.js';
import type { StorageRef } from './storage-types.js';
import { gatherStrided, isContiguous } from './strided-copy.js';
import type { PendingTensor } from './torch-globals.js';

/**
 * Reads each referenced storage once, then gives every tensor its data: the
 * storage array itself when the tensor covers it exactly, else a contiguous
 * copy of its (possibly strided) view.
 */
export async function fillTensors(
  pending: PendingTensor[],
  byteOrder: 'little' | 'big',
  readStorage: (storage: StorageRef) => Promise<Uint8Array>,
): Promise<void> {
  const byKey = new Map<string, PendingTensor[]>();
  for (const p of pending) {
    const list = byKey.get(p.storage.key) ?? [];
    list.push(p);
    byKey.set(p.storage.key, list);
  }
  for (const [key, uses] of byKey) {
    const { dtype, rootNumel: numel } = uses[0].storage;
    if (uses.some((u) => u.storage.dtype !== dtype)) throw new Error(`storage ${key} is used with different dtypes`);
    const bytes = await readStorage(uses[0].storage);
    const size = bytesPerElement(dtype);
    if (byteOrder !== (endianness() === 'LE' ? 'little' : 'big')) swapBytes(bytes, size);
    const storage = typedArrayFor(dtype, bytes.buffer as ArrayBuffer, bytes.byteOffset, numel);
    for (const { tensor, offset: viewRelativeOffset, stride, storage: ref } of uses) {
      const offset = ref.viewOffset + viewRelativeOffset;
      const count = elementCount(tensor.shape);
      if (offset === 0 && count === numel && isContiguous(tensor.shape, stride)) {
        tensor.data = storage;
      } else if (isContiguous(tensor.shape, stride)) {
        tensor.data = storage.slice(offset, offset + count) as TypedArray;
      } else {
        tensor.data = gatherStrided(storage, dtype, tensor.shape, stride, offset, count);
      }
    }
  }
}

function swapBytes(bytes: Uint8Array, size: number): void {
  if (size === 1) return;
  for (let i = 0; i + size <= bytes.length; i += size) bytes.subarray(i, i + size).reverse();
}
