// The safetensors file layout (https://github.com/huggingface/safetensors):
// u64 little-endian N, then N bytes of JSON header
// { "__metadata__"?: {string: string}, name: { dtype, shape, data_offsets: [begin, end] } },
// then the data block; offsets are relative to the start of the data block.
import type { DType } from './tensor-data.js';

export const SAFETENSORS_DTYPES: Record<string, DType> = {
  F64: 'float64',
  F32: 'float32',
  F16: 'float16',
  BF16: 'bfloat16',
  I64: 'int64',
  I32: 'int32',
  I16: 'int16',
  I8: 'int8',
  U64: 'uint64',
  U32: 'uint32',
  U16: 'uint16',
  U8: 'uint8',
  BOOL: 'bool',
};

export const SAFETENSORS_CODES = Object.fromEntries(
  Object.entries(SAFETENSORS_DTYPES).map(([code, dtype]) => [dtype, code]),
) as Record<DType, string>;

/** The reference implementation refuses headers above 100 MB; so do we (a corrupt length would otherwise allocate GBs). */
export const MAX_HEADER_BYTES = 100_000_000;
