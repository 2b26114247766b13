import * as tf from '@tensorflow/tfjs-core';
import type { NamedAttrMap, TensorInfo } from '@tensorflow/tfjs-core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  geglu, layerNorm, linear, packedAttention, packedLayout, registerCompositeKernels, segmentMean, traceKernels,
  VnpGeglu, VnpLayerNorm, VnpPackedAttention, VnpSegmentMean, vnpKernelNames,
  type VnpPackedAttentionAttrs, type VnpPackedAttentionInputs, type VnpSegmentMeanAttrs,
} from '../src/index.js';
import { startBackend } from './start-backend.js';

describe('kernel registry', () => {
  it('has a kernel for every name in vnpKernelNames on cpu, wasm, webgpu and tensorflow', () => {
    expect(vnpKernelNames).toEqual(['VnpLinear', 'VnpLayerNorm', 'VnpGeglu', 'VnpRotaryQkv', 'VnpPackedAttention', 'VnpSegmentMean', 'VnpEmbedding']);
    for (const backend of ['cpu', 'wasm', 'webgpu', 'tensorflow']) {
      for (const name of vnpKernelNames) expect(tf.getKernel(name, backend), `${name} on ${backend}`).toBeDefined();
    }
  });

  it('registers no composites for cuda, which has fused kernels of its own', () => {
    for (const name of vnpKernelNames) expect(tf.getKernel(name, 'cuda')?.kernelFunc).not.toBe(tf.getKernel(name, 'cpu').kernelFunc);
  });

  it('registerCompositeKernels serves another backend, keeps existing kernels and rejects unknown names', () => {
    const own = () => tf.zeros([1]);
    tf.registerKernel({ kernelName: VnpGeglu, backendName: 'test-backend', kernelFunc: own });
    registerCompositeKernels('test-backend');
    try {
      for (const name of vnpKernelNames) expect(tf.getKernel(name, 'test-backend')).toBeDefined();
      expect(tf.getKernel(VnpGeglu, 'test-backend').kernelFunc).toBe(own);
      expect(tf.getKernel(VnpLayerNorm, 'test-backend').kernelFunc).toBe(tf.getKernel(VnpLayerNorm, 'cpu').kernelFunc);
      expect(() => registerCompositeKernels('test-backend', ['VnpNothing'])).toThrow(/no composite kernel named 'VnpNothing'/);
    } finally {
      for (const name of vnpKernelNames) tf.unregisterKernel(name, 'test-backend');
    }
  });
});

describe('the kernel seam on cpu', () => {
  beforeAll(async () => {
    expect(await startBackend('cpu')).toBe('cpu');
  });

  const replaced: string[] = [];
  /** Swaps in a kernel for one name on cpu, as a backend with its own implementation would register it. */
  function replaceKernel(name: string, kernelFunc: (args: { inputs: Record<string, TensorInfo>; attrs?: NamedAttrMap }) => TensorInfo) {
    const composite = tf.getKernel(name, 'cpu');
    tf.unregisterKernel(name, 'cpu');
    tf.registerKernel({ kernelName: name, backendName: 'cpu', kernelFunc: kernelFunc as never });
    replaced.push(name);
    return composite;
  }
  afterEach(() => {
    for (const name of replaced.splice(0)) {
      tf.unregisterKernel(name, 'cpu');
      registerCompositeKernels('cpu', [name]);
    }
  });

  it('ops dispatch by kernel name: a registered replacement runs instead of the composite', () => {
    const calls: string[] = [];
    replaceKernel(VnpLayerNorm, ({ inputs, attrs }) => {
      calls.push(`eps=${String(attrs?.epsilon)} x=[${inputs.x.shape}] gamma=[${inputs.gamma.shape}]`);
      return tf.fill(inputs.x.shape as [number, number], 7);
    });
    const before = tf.memory().numTensors;
    const x = tf.ones([3, 4]) as tf.Tensor2D;
    const y = layerNorm(x, tf.ones([4]) as tf.Tensor1D, tf.zeros([4]) as tf.Tensor1D, 1e-6);
    expect(calls).toEqual(['eps=0.000001 x=[3,4] gamma=[4]']);
    expect(Array.from(y.dataSync())).toEqual(new Array(12).fill(7));
    tf.dispose([x, y]);
    expect(tf.memory().numTensors).toBe(before + 2); // gamma and beta, made by the test and not disposed
  });

  it('packedAttention and segmentMean pass cuSeqlens, maxSeqLen, plain-array slopes and the layout', () => {
    let seen: { inputs: VnpPackedAttentionInputs; attrs: VnpPackedAttentionAttrs } | undefined;
    let mean: VnpSegmentMeanAttrs | undefined;
    const attention = replaceKernel(VnpPackedAttention, (args) => {
      seen = args as unknown as typeof seen;
      return attention.kernelFunc(args as never) as TensorInfo;
    });
    const pooling = replaceKernel(VnpSegmentMean, (args) => {
      mean = args.attrs as unknown as VnpSegmentMeanAttrs;
      return pooling.kernelFunc(args as never) as TensorInfo;
    });
    const layout = packedLayout([3, 2, 5]);
    const qkv = tf.randomNormal([10, 3 * 2 * 4], 0, 1, 'float32', 1) as tf.Tensor2D;
    const out = packedAttention(qkv, layout, { numHeads: 2, scale: 0.5, alibiSlopes: Float32Array.from([0.5, 0.25]) });
    expect(out.shape).toEqual([10, 8]);
    expect(seen!.inputs.qkv).toBe(qkv);
    expect(seen!.inputs.cuSeqlens).toBe(layout.offsetsTensor);
    expect({ ...seen!.attrs, layout: undefined }).toEqual({ numHeads: 2, scale: 0.5, maxSeqLen: 5, alibiSlopes: [0.5, 0.25], layout: undefined });
    expect(Array.isArray(seen!.attrs.alibiSlopes)).toBe(true);
    expect(seen!.attrs.layout).toBe(layout);
    packedAttention(qkv, layout, { numHeads: 2, scale: 1 }).dispose();
    expect(seen!.attrs.alibiSlopes).toBeNull();
    const means = segmentMean(out, layout, 0, 1);
    expect(means.shape).toEqual([3, 8]);
    expect({ skipStart: mean!.skipStart, skipEnd: mean!.skipEnd, layout: mean!.layout === layout }).toEqual({ skipStart: 0, skipEnd: 1, layout: true });
    tf.dispose([qkv, out, means]);
    layout.dispose();
  });

  it('omits absent optional inputs instead of passing undefined', () => {
    const keys: string[][] = [];
    const composite = replaceKernel(VnpGeglu, (args) => {
      keys.push(Object.keys(args.inputs));
      return composite.kernelFunc(args as never) as TensorInfo;
    });
    geglu(tf.ones([2, 4]) as tf.Tensor2D).dispose();
    expect(keys).toEqual([['x']]);
  });
});

describe('traceKernels', () => {
  beforeAll(async () => {
    expect(await startBackend('cpu')).toBe('cpu');
  });

  it('lists the top-level kernels only, in order, and restores the registry (also after a throw)', () => {
    const kernels = tf.getKernelsForBackend('cpu');
    const x = tf.ones([2, 4]) as tf.Tensor2D;
    const w = tf.ones([4, 6]) as tf.Tensor2D;
    const { result, calls } = traceKernels(() => tf.tidy(() => tf.add(geglu(linear(x, w, undefined, { activation: 'gelu' })), 1)));
    expect(calls).toEqual(['VnpLinear', 'VnpGeglu', 'Add']);
    expect(result.shape).toEqual([2, 3]);
    expect(() => traceKernels(() => linear(x, tf.ones([5, 6]) as tf.Tensor2D))).toThrow(/inner sizes/);
    expect(() => traceKernels(() => { tf.add(x, 1).dispose(); throw new Error('inside'); })).toThrow('inside');
    const after = tf.getKernelsForBackend('cpu');
    expect(after.length).toBe(kernels.length);
    for (const config of kernels) expect(tf.getKernel(config.kernelName, 'cpu')).toBe(config);
    tf.dispose([x, w, result]);
  });
});
