// torch storage classes named in checkpoints (`torch.FloatStorage`, …) → dtypes.
import type { DType } from '../tensor-data.js';

export const TORCH_STORAGE_DTYPES: Record<string, DType> = {
  DoubleStorage: 'float64',
  FloatStorage: 'float32',
  HalfStorage: 'float16',
  BFloat16Storage: 'bfloat16',
  LongStorage: 'int64',
  IntStorage: 'int32',
  ShortStorage: 'int16',
  CharStorage: 'int8',
  ByteStorage: 'uint8',
  BoolStorage: 'bool',
  UInt16Storage: 'uint16',
  UInt32Storage: 'uint32',
  UInt64Storage: 'uint64',
  UntypedStorage: 'uint8',
};

/** A storage class reference resolved from the pickle (inert marker). */
export class TorchStorageType {
  constructor(
    readonly name: string,
    readonly dtype: DType | undefined,
  ) {}
}

/**
 * What persistent_load returns: a storage inside the checkpoint, read later.
 * Legacy (non-zip) files can also hand out a view: elements
 * [viewOffset, viewOffset + numel) of the root storage `key` (rootNumel elements).
 */
export class StorageRef {
  constructor(
    readonly key: string,
    readonly dtype: DType,
    readonly numel: number,
    readonly location: string,
    readonly rootNumel: number = numel,
    readonly viewOffset: number = 0,
  ) {}
}
