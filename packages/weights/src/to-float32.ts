import { bfloat16ToFloat32, float16ToFloat32 } from './half-float.js';
import type { TensorData } from './tensor-data.js';

/**
 * The tensor's elements as float32. float32 data is returned as is (no copy);
 * float16/bfloat16 are widened exactly; other numeric dtypes are converted
 * (int64 through Number, so |x| > 2^53 loses precision as float32 would anyway).
 */
export function toFloat32(t: TensorData): Float32Array {
  switch (t.dtype) {
    case 'float32':
      return t.data as Float32Array;
    case 'float16':
      return float16ToFloat32(t.data as Uint16Array);
    case 'bfloat16':
      return bfloat16ToFloat32(t.data as Uint16Array);
    case 'int64':
    case 'uint64': {
      const src = t.data as BigInt64Array | BigUint64Array;
      const out = new Float32Array(src.length);
      for (let i = 0; i < src.length; i++) out[i] = Number(src[i]);
      return out;
    }
    default:
      return Float32Array.from(t.data as ArrayLike<number>);
  }
}

/** The same tensor with float32 data (identity for float32). */
export function tensorToFloat32(t: TensorData): TensorData {
  if (t.dtype === 'float32') return t;
  return { dtype: 'float32', shape: [...t.shape], data: toFloat32(t) };
}
