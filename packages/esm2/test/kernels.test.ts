import * as tf from '@tensorflow/tfjs-core';
import { segmentMean, traceKernels, vnpKernelNames } from '@virnucpro/ops';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEsm2Weights, Esm2Model, loadEsm2Checkpoint, tokenizeProtein } from '../src/index.js';
import { maskId } from '../src/alphabet.js';
import { fixtureDir } from './fixture.js';
import { startCompute } from '@virnucpro/compute';

// The forward pass is built from @virnucpro/ops only: every kernel it runs at the top level is one of
// the named Vnp* kernels, so a backend that implements those runs ESM-2 unchanged.
describe('ESM-2 forward pass through the kernel seam (cpu)', () => {
  let model: Esm2Model;
  beforeAll(async () => {
    expect((await startCompute({ backend: 'cpu' })).backend).toBe('cpu');
    const checkpoint = await loadEsm2Checkpoint(fixtureDir);
    model = new Esm2Model(checkpoint.config, createEsm2Weights(checkpoint.config, checkpoint.tensors));
  });
  afterAll(() => model.dispose());

  // Rotary runs inside VnpPackedAttention (its rotary tables), not as a kernel of its own.
  const perLayer = ['VnpLayerNorm', 'VnpLinear', 'VnpPackedAttention', 'VnpLinear', 'VnpLayerNorm', 'VnpLinear', 'VnpLinear'];

  for (const masked of [false, true]) {
    it(`runs only Vnp* kernels: embedding, ${perLayer.length} per layer, final LayerNorm, segmentMean${masked ? ' (token dropout per row)' : ''}`, () => {
      const tokens = ['MKTAYIAKQR', 'MLS', 'MKV'].map((s) => tokenizeProtein(s));
      if (masked) tokens[0][3] = maskId;
      const before = tf.memory().numTensors;
      const { result, calls } = traceKernels(() => {
        const { hidden, layout } = model.forwardPacked(tokens);
        const means = segmentMean(hidden, layout, 1, 1);
        hidden.dispose();
        layout.dispose();
        return means;
      });
      expect(result.shape).toEqual([3, model.dim]);
      result.dispose();
      expect(calls.every((name) => (vnpKernelNames as readonly string[]).includes(name)), calls.join(' ')).toBe(true);
      expect(calls).toEqual([
        'VnpEmbedding',
        ...Array.from({ length: model.config.numLayers }, () => perLayer).flat(),
        'VnpLayerNorm',
        'VnpSegmentMean',
      ]);
      // The rotary tables are kept by the model for later batches; nothing else stays.
      expect(tf.memory().numTensors - before).toBeLessThanOrEqual(2);
    });
  }
});
