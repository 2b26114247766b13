import * as tf from '@tensorflow/tfjs-core';
import type { NamedAttrMap, NamedTensorMap } from '@tensorflow/tfjs-core';

// Shared argument checks of the op functions, and the one place they call the engine.

/** ENGINE.runKernel with the kernel-names.ts input/attr types (tfjs-core's own ops cast the same way). */
export function runVnpKernel<T extends tf.Tensor>(name: string, inputs: object, attrs: object): T {
  return tf.engine().runKernel<T>(name, inputs as NamedTensorMap, attrs as NamedAttrMap);
}

export function expectRank(op: string, name: string, t: tf.Tensor, rank: number): void {
  if (t.rank !== rank) throw new Error(`${op}: ${name} must have rank ${rank}, got shape [${t.shape}]`);
}

export function expectShape(op: string, name: string, t: tf.Tensor, shape: readonly number[]): void {
  if (t.rank !== shape.length || t.shape.some((n, i) => n !== shape[i])) {
    throw new Error(`${op}: ${name} must have shape [${shape}], got [${t.shape}]`);
  }
}

export function expectDtype(op: string, name: string, t: tf.Tensor, dtype: tf.DataType): void {
  if (t.dtype !== dtype) throw new Error(`${op}: ${name} must be ${dtype}, got ${t.dtype}`);
}

export function expectCount(op: string, name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) throw new Error(`${op}: ${name} must be an integer ≥ ${min}, got ${value}`);
}
