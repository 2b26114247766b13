import * as tf from '@tensorflow/tfjs-core';
import type { NamedAttrMap, NamedTensorInfoMap, TensorInfo } from '@tensorflow/tfjs-core';

/** What tfjs hands a kernelFunc: the op's inputs and attrs (the backend object is not needed by composites). */
export interface CompositeKernelArgs {
  inputs: NamedTensorInfoMap;
  attrs?: NamedAttrMap;
}

/**
 * The Tensor behind a kernel input. The ops of this package pass Tensors, which runKernel hands
 * through unchanged; a bare TensorInfo (another kernel calling this one) gets a Tensor view that the
 * surrounding tf.tidy releases again.
 */
export function asTensor<T extends tf.Tensor>(info: TensorInfo): T {
  return (info instanceof tf.Tensor ? info : tf.engine().makeTensorFromTensorInfo(info)) as T;
}

/** The named inputs and attrs of a kernel call, typed as kernel-names.ts declares them. */
export function kernelArgs<I, A>(args: CompositeKernelArgs): { inputs: I; attrs: A } {
  return { inputs: args.inputs as unknown as I, attrs: (args.attrs ?? {}) as unknown as A };
}
