// Gathers a (possibly non-contiguous) view of a storage into a new C-contiguous array.
import { allocateTyped, type DType, type TypedArray } from '../tensor-data.js';

export function isContiguous(shape: readonly number[], stride: readonly number[]): boolean {
  let expected = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    if (shape[d] !== 1 && stride[d] !== expected) return false;
    expected *= shape[d];
  }
  return true;
}

export function gatherStrided(
  storage: TypedArray,
  dtype: DType,
  shape: readonly number[],
  stride: readonly number[],
  offset: number,
  count: number,
): TypedArray {
  const out = allocateTyped(dtype, count) as unknown as { [i: number]: number | bigint };
  const src = storage as unknown as { [i: number]: number | bigint };
  if (count === 0) return out as unknown as TypedArray;
  const rank = shape.length;
  const index = new Array<number>(rank).fill(0);
  let position = offset;
  for (let i = 0; i < count; i++) {
    out[i] = src[position];
    // Odometer increment over the dimensions, last dimension fastest.
    for (let d = rank - 1; d >= 0; d--) {
      index[d]++;
      position += stride[d];
      if (index[d] < shape[d]) break;
      position -= stride[d] * shape[d];
      index[d] = 0;
    }
  }
  return out as unknown as TypedArray;
}
