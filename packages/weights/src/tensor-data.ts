// The one tensor shape every reader in this package returns: a dtype name, a
// shape and a typed array over the raw little-endian elements. Half-precision
// values keep their 16-bit patterns (Uint16Array) so nothing is lost;
// `toFloat32` widens them when a consumer wants numbers.

export type DType =
  | 'float64'
  | 'float32'
  | 'float16'
  | 'bfloat16'
  | 'int64'
  | 'int32'
  | 'int16'
  | 'int8'
  | 'uint64'
  | 'uint32'
  | 'uint16'
  | 'uint8'
  | 'bool';

export type TypedArray =
  | Float64Array
  | Float32Array
  | Uint16Array
  | BigInt64Array
  | BigUint64Array
  | Int32Array
  | Uint32Array
  | Int16Array
  | Int8Array
  | Uint8Array;

export interface TensorData {
  dtype: DType;
  shape: number[];
  /** Row-major (C-contiguous) elements; float16/bfloat16 as raw Uint16 bit patterns, bool as Uint8 0/1. */
  data: TypedArray;
}

interface DTypeInfo {
  bytes: number;
  create(buffer: ArrayBuffer, byteOffset: number, length: number): TypedArray;
  allocate(length: number): TypedArray;
}

const INFO: Record<DType, DTypeInfo> = {
  float64: typed(Float64Array),
  float32: typed(Float32Array),
  float16: typed(Uint16Array),
  bfloat16: typed(Uint16Array),
  int64: typed(BigInt64Array),
  int32: typed(Int32Array),
  int16: typed(Int16Array),
  int8: typed(Int8Array),
  uint64: typed(BigUint64Array),
  uint32: typed(Uint32Array),
  uint16: typed(Uint16Array),
  uint8: typed(Uint8Array),
  bool: typed(Uint8Array),
};

function typed<T extends TypedArray>(ctor: {
  BYTES_PER_ELEMENT: number;
  new (buffer: ArrayBuffer, byteOffset: number, length: number): T;
  new (length: number): T;
}): DTypeInfo {
  return {
    bytes: ctor.BYTES_PER_ELEMENT,
    create: (buffer, byteOffset, length) => new ctor(buffer, byteOffset, length),
    allocate: (length) => new ctor(length),
  };
}

export const DTYPES = Object.keys(INFO) as DType[];

export function isDType(name: string): name is DType {
  return Object.prototype.hasOwnProperty.call(INFO, name);
}

export function bytesPerElement(dtype: DType): number {
  return INFO[dtype].bytes;
}

export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** A typed array of `dtype` viewing `length` elements of `buffer` (offset must be element-aligned). */
export function typedArrayFor(dtype: DType, buffer: ArrayBuffer, byteOffset: number, length: number): TypedArray {
  return INFO[dtype].create(buffer, byteOffset, length);
}

export function allocateTyped(dtype: DType, length: number): TypedArray {
  return INFO[dtype].allocate(length);
}

/** Checks that data length matches the shape; throws naming the tensor otherwise. */
export function assertTensorConsistent(name: string, t: TensorData): void {
  if (!isDType(t.dtype)) throw new Error(`tensor "${name}": unknown dtype "${String(t.dtype)}"`);
  for (const d of t.shape) {
    if (!Number.isSafeInteger(d) || d < 0) throw new Error(`tensor "${name}": bad dimension ${d} in shape [${t.shape}]`);
  }
  const expected = elementCount(t.shape);
  if (t.data.length !== expected) {
    throw new Error(`tensor "${name}": shape [${t.shape}] needs ${expected} elements, data has ${t.data.length}`);
  }
  if (t.data.BYTES_PER_ELEMENT !== bytesPerElement(t.dtype)) {
    throw new Error(`tensor "${name}": dtype ${t.dtype} needs ${bytesPerElement(t.dtype)}-byte elements, got a ${t.data.constructor.name}`);
  }
}

/** The raw little-endian bytes of a tensor (a view, no copy). */
export function tensorBytes(t: TensorData): Uint8Array {
  return new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
}
