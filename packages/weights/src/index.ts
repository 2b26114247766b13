export type { DType, TensorData, TypedArray } from './tensor-data.js';
export { DTYPES, bytesPerElement, elementCount, isDType } from './tensor-data.js';
export { toFloat32, tensorToFloat32 } from './to-float32.js';
export { bfloat16ToFloat32, float16ToFloat32, float32ToFloat16Bits, halfBitsToNumber } from './half-float.js';
export type { ReadSafetensorsOptions, SafetensorsContents, SafetensorsEntry } from './safetensors-read.js';
export { SafetensorsFile, openSafetensors, readSafetensors, readShardedSafetensors } from './safetensors-read.js';
export type { TensorCollection } from './safetensors-write.js';
export { encodeSafetensorsHeader, writeSafetensors } from './safetensors-write.js';
export { writeFileAtomic } from './file-io.js';
