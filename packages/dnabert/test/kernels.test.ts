import * as tf from '@tensorflow/tfjs-core';
import { packedLayout, segmentMean, traceKernels, vnpKernelNames } from '@virnucpro/ops';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDnabert, type LoadedDnabert } from '../src/index.js';
import { tinyDir, tinyInputs } from './parity-helpers.js';
import { startCompute } from '@virnucpro/compute';

// The forward pass is built from @virnucpro/ops only: every kernel it runs at the top level is one of
// the named Vnp* kernels, so a backend that implements those runs DNABERT unchanged.
describe('DNABERT forward pass through the kernel seam (cpu)', () => {
  let loaded: LoadedDnabert;
  beforeAll(async () => {
    expect((await startCompute({ backend: 'cpu' })).backend).toBe('cpu');
    loaded = await loadDnabert(tinyDir);
  });
  afterAll(() => loaded?.model.dispose());

  it('runs only Vnp* kernels: embedding + LayerNorm, 8 per layer, segmentMean', () => {
    const tokenized = tinyInputs.token_ids.map((t) => Int32Array.from(t));
    const ids = new Int32Array(tokenized.reduce((a, t) => a + t.length, 0));
    tokenized.reduce((at, t) => (ids.set(t, at), at + t.length), 0);
    const layout = packedLayout(tokenized.map((t) => t.length));
    const before = tf.memory().numTensors;
    const { result, calls } = traceKernels(() => tf.tidy(() => segmentMean(loaded.model.forwardPacked(ids, layout), layout)));
    expect(result.shape).toEqual([tokenized.length, loaded.config.hiddenSize]);
    result.dispose();
    layout.dispose();
    expect(tf.memory().numTensors).toBeLessThanOrEqual(before);
    expect(calls.every((name) => (vnpKernelNames as readonly string[]).includes(name)), calls.join(' ')).toBe(true);
    const perLayer = ['VnpLinear', 'VnpPackedAttention', 'VnpLinear', 'VnpLayerNorm', 'VnpLinear', 'VnpGeglu', 'VnpLinear', 'VnpLayerNorm'];
    expect(calls).toEqual([
      'VnpEmbedding',
      'VnpLayerNorm',
      ...Array.from({ length: loaded.config.numLayers }, () => perLayer).flat(),
      'VnpSegmentMean',
    ]);
  });
});
