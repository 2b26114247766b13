export type { DType, TensorData, TypedArray } from './tensor-data.js';
export { DTYPES, bytesPerElement, elementCount, isDType } from './tensor-data.js';
export { toFloat32, tensorToFloat32 } from './to-float32.js';
export { bfloat16ToFloat32, float16ToFloat32, float32ToFloat16Bits, halfBitsToNumber } from './half-float.js';
export type { ReadSafetensorsOptions, SafetensorsContents, SafetensorsEntry } from './safetensors-read.js';
export { SafetensorsFile, openSafetensors, readSafetensors, readShardedSafetensors } from './safetensors-read.js';
export type { TensorCollection, TensorLayout } from './safetensors-write.js';
export { encodeSafetensorsHeader, writeSafetensors } from './safetensors-write.js';
export { unpickle, unpickleAt, type UnpickleOptions } from './pickle/unpickler.js';
export { PyCallable, PyGlobal, PyObject, pythonAttributes, type DictMode } from './pickle/python-objects.js';
export { readTorchCheckpoint, type ReadTorchOptions } from './torch/read-torch-checkpoint.js';
export { isTensorData, isTorchModule, loadStateDict, moduleStateDict, stateDictOf } from './state-dict.js';
export {
  DEFAULT_SHARD_BYTES,
  readTfjsArtifact,
  writeTfjsArtifact,
  type TfjsArtifact,
  type TfjsModelJson,
  type TfjsWeightEntry,
  type WriteTfjsOptions,
} from './tfjs-artifact.js';
