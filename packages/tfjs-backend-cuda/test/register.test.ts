import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { vnpKernelNames } from '@virnucpro/ops';
import { describe, expect, it } from 'vitest';
import { precisions, probeCuda } from '../src/index.js';
import { isPrecision } from '../src/precision.js';
import { elementsPerWord, floatStorage, storageDefine } from '../src/precision.js';

describe('registration', () => {
  it('registers the cuda backend and a cuda kernel for every Vnp op and the load-time ops', () => {
    expect(tf.findBackendFactory('cuda')).toBeTypeOf('function');
    for (const name of [...vnpKernelNames, 'Reshape', 'Identity', 'Cast', 'Transpose', 'Concat', 'Add', 'Sub', 'Multiply', 'RealDiv']) {
      expect(tf.getKernel(name, 'cuda'), name).toBeDefined();
    }
  });

  it('publishes nothing on globalThis: @virnucpro/compute imports it by name', () => {
    expect((globalThis as Record<symbol, unknown>)[Symbol.for('@virnucpro/tfjs-backend-cuda')]).toBeUndefined();
  });

  it('on a machine without the CUDA libraries, probing says what is missing instead of throwing', () => {
    const probe = probeCuda();
    if (probe.ok) return; // a developer machine with a GPU
    expect(probe.reason).toMatch(/libcuda\.so\.1|cuBLASLt|NVRTC|CUDA driver/);
  });
});

describe('precision', () => {
  it('maps precisions to storage types, CUDA defines and 16-byte word sizes', () => {
    expect(precisions).toEqual(['fp32', 'fp16', 'bf16', 'fp8']);
    expect(isPrecision('fp16')).toBe(true);
    expect(isPrecision('fp8')).toBe(true);
    expect(isPrecision('int8')).toBe(false);
    expect(floatStorage('fp32')).toBe('f32');
    expect(floatStorage('bf16')).toBe('bf16');
    expect(floatStorage('fp8')).toBe('bf16');
    expect(storageDefine('f16')).toBe('-DVNP_F16');
    expect(elementsPerWord('f16')).toBe(8);
    expect(elementsPerWord('f32')).toBe(4);
  });
});
