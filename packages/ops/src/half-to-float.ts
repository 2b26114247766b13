import * as tf from '@tensorflow/tfjs-core';
import { toFloat32 } from '@virnucpro/weights';
import { VnpHalfToFloat, type VnpHalfToFloatAttrs, type VnpHalfToFloatInputs } from './kernel-names.js';
import { runVnpKernel } from './op-checks.js';

/**
 * A float32 tensor of `shape` from fp16 or bf16 bit patterns (a checkpoint's own bytes). Where the backend has
 * the `VnpHalfToFloat` kernel (cuda), the bits go to the device as they are and are converted there: half the
 * bytes of a float32 upload and no host-side widening (~3 ns per weight, ~8 s for ESM-2 3B). Elsewhere they are
 * widened on the host, as any float32 tensor is made. The values are the same either way.
 */
export function halfToFloat(bits: Uint16Array, shape: number[], format: VnpHalfToFloatAttrs['format']): tf.Tensor {
  const size = shape.reduce((a, b) => a * b, 1);
  if (size !== bits.length) throw new Error(`halfToFloat: ${bits.length} values for shape [${shape}]`);
  if (!tf.getKernel(VnpHalfToFloat, tf.getBackend())) {
    return tf.tensor(toFloat32({ dtype: format, shape, data: bits }), shape, 'float32');
  }
  // Two halves per int32 word: the same bytes, reinterpreted (copied only when odd-sized or unaligned).
  const aligned = bits.length % 2 === 0 && bits.byteOffset % 4 === 0;
  const words = aligned ? new Int32Array(bits.buffer, bits.byteOffset, bits.length / 2) : packWords(bits);
  return tf.tidy(() => {
    const inputs: VnpHalfToFloatInputs = { x: tf.tensor1d(words, 'int32') };
    const attrs: VnpHalfToFloatAttrs = { shape: [...shape], format };
    return runVnpKernel<tf.Tensor>(VnpHalfToFloat, inputs, attrs);
  });
}

function packWords(bits: Uint16Array): Int32Array {
  const words = new Int32Array(Math.ceil(bits.length / 2));
  new Uint16Array(words.buffer, 0, bits.length).set(bits);
  return words;
}
