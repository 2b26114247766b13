import * as tf from '@tensorflow/tfjs-core';

/** Hands out the array a tensor's values are read into: at least `floats` long (a longer one is used from its start). */
export type FloatAllocator = (floats: number) => Float32Array;

/** A backend that copies a tensor's values into an array its caller gives (`cuda`: from its page-locked staging). */
interface ReadIntoBackend {
  readInto(dataId: tf.DataId, allocate: FloatAllocator): Promise<Float32Array>;
}

/**
 * A float32 tensor's values, read into an array from `allocate` where the backend can (`cuda`): a caller that reads
 * a batch's vectors many times a second (`embed dnabert`: ~30 batches of 6 MB a second on an H200) hands the same
 * few arrays out again instead of making a new one each time, whose allocation and collection cost its thread a
 * quarter of its time. Other backends return the array their read makes, `allocate` unused; so may cuda (a tensor of
 * another type). Either way the values are the tensor's, `t.size` of them from the returned array's start.
 */
export async function readFloats(t: tf.Tensor, allocate?: FloatAllocator): Promise<Float32Array> {
  const backend = tf.backend() as Partial<ReadIntoBackend>;
  if (allocate && t.dtype === 'float32' && typeof backend.readInto === 'function') return backend.readInto(t.dataId, allocate);
  return (await t.data()) as Float32Array;
}
