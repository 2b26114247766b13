import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { bfloat16ToFloat32, float16ToFloat32, float32ToFloat16Bits } from '@virnucpro/weights';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { halfToFloat, VnpHalfToFloat, type VnpHalfToFloatAttrs } from '../src/index.js';

const values = Float32Array.from([0, -0, 1.5, -2.25, 65504, 6e-8, 0.1, Infinity, -Infinity, NaN, 3.14159]);
const f16 = float32ToFloat16Bits(values);
const bf16 = Uint16Array.from(new Uint32Array(values.buffer), (u) => u >>> 16);

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('halfToFloat', () => {
  afterEach(() => {
    if (tf.getKernel(VnpHalfToFloat, 'cpu')) tf.unregisterKernel(VnpHalfToFloat, 'cpu');
  });

  it('widens fp16 and bf16 bits on the host where the backend has no VnpHalfToFloat kernel', () => {
    expect(tf.getKernel(VnpHalfToFloat, 'cpu')).toBeUndefined();
    expect(halfToFloat(f16, [11], 'float16').dataSync()).toEqual(float16ToFloat32(f16));
    expect(halfToFloat(bf16, [11], 'bfloat16').dataSync()).toEqual(bfloat16ToFloat32(bf16));
    expect(halfToFloat(f16.subarray(0, 10), [2, 5], 'float16').shape).toEqual([2, 5]);
  });

  it("hands a backend's kernel the bits two per int32 word, low half first, whatever the size and offset", () => {
    const seen: { words: number; attrs: VnpHalfToFloatAttrs }[] = [];
    // A stand-in for a GPU kernel: unpack the words the way a little-endian device reads them.
    tf.registerKernel({
      kernelName: VnpHalfToFloat,
      backendName: 'cpu',
      kernelFunc: ({ inputs, attrs, backend }) => {
        const words = (backend as { readSync(id: object): Int32Array }).readSync((inputs.x as tf.TensorInfo).dataId);
        const a = attrs as unknown as VnpHalfToFloatAttrs;
        seen.push({ words: words.length, attrs: a });
        const size = a.shape.reduce((x, y) => x * y, 1);
        const bits = new Uint16Array(Int32Array.from(words).buffer, 0, size);
        const out = a.format === 'float16' ? float16ToFloat32(bits) : bfloat16ToFloat32(bits);
        return (backend as { makeTensorInfo(s: number[], d: string, v: Float32Array): tf.TensorInfo }).makeTensorInfo(a.shape, 'float32', out);
      },
    });
    const before = tf.memory().numTensors;
    const odd = halfToFloat(f16, [11], 'float16'); // 11 values: 6 words, the last half zero
    expect(odd.dataSync()).toEqual(float16ToFloat32(f16));
    const unaligned = halfToFloat(bf16.subarray(1, 9), [2, 4], 'bfloat16'); // starts 2 bytes into its buffer
    expect(unaligned.dataSync()).toEqual(bfloat16ToFloat32(bf16.subarray(1, 9)));
    const aligned = halfToFloat(f16.subarray(0, 10), [10], 'float16'); // a view, no copy
    expect(aligned.dataSync()).toEqual(float16ToFloat32(f16.subarray(0, 10)));
    expect(seen.map((s) => s.words)).toEqual([6, 4, 5]);
    expect(seen[1].attrs).toEqual({ shape: [2, 4], format: 'bfloat16' });
    tf.dispose([odd, unaligned, aligned]);
    expect(tf.memory().numTensors).toBe(before); // the int32 word tensors do not leak
  });

  it('refuses a shape that does not hold the values', () => {
    expect(() => halfToFloat(f16, [3, 3], 'float16')).toThrow(/11 values for shape \[3,3\]/);
  });
});
