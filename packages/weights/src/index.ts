export type { DType, TensorData, TypedArray } from './tensor-data.js';
export { DTYPES, elementCount } from './tensor-data.js';
export { toFloat32 } from './to-float32.js';
export { bfloat16ToFloat32, float16ToFloat32, float32ToFloat16Bits, halfBitsToNumber } from './half-float.js';
export type { ReadSafetensorsOptions, SafetensorsContents, SafetensorsEntry } from './safetensors-read.js';
export { SafetensorsFile, openSafetensors, readSafetensors } from './safetensors-read.js';
export type { TensorCollection, TensorLayout } from './safetensors-write.js';
export { encodeSafetensorsHeader, writeSafetensors } from './safetensors-write.js';
export { PyCallable, PyGlobal, PyObject } from './pickle/python-objects.js';
export { readTorchCheckpoint, type ReadTorchOptions } from './torch/read-torch-checkpoint.js';
export { loadStateDict, stateDictOf } from './state-dict.js';
export {
  readTfjsArtifact,
  writeTfjsArtifact,
  type TfjsArtifact,
  type TfjsModelJson,
  type TfjsWeightEntry,
  type WriteTfjsOptions,
} from './tfjs-artifact.js';
