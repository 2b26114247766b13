import * as tf from '@tensorflow/tfjs-core';
import type { BackendName } from '@virnucpro/ops';
import { toFloat32 } from '@virnucpro/weights';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEsm2Weights, Esm2Model, loadEsm2Checkpoint, tokenizeProtein } from '../src/index.js';
import { compare, fixtureDir, loadFixture, type EsmFixture } from './fixture.js';
import { startCompute } from '@virnucpro/compute';

// Tolerances from the fixture README: a correct fp32 implementation meets them.
const HIDDEN_TOL = 1e-4;
const MEAN_TOL = 1e-5;
const MIN_COSINE = 0.99999;

// The three layouts users have: an HF folder (model.safetensors), HF pytorch_model.bin, fair-esm's .pt.
const layouts: [string, string][] = [
  ['HF safetensors folder', fixtureDir],
  ['HF pytorch_model.bin', `${fixtureDir}pytorch_model.bin`],
  ['fair-esm .pt', `${fixtureDir}fair_esm.pt`],
];

describe.each<BackendName>(['cpu', 'wasm'])('ESM-2 parity on %s', (backend) => {
  let fixture: EsmFixture;
  beforeAll(async () => {
    expect((await startCompute({ backend })).backend).toBe(backend);
    fixture = await loadFixture();
  });

  describe.each(layouts)('%s', (_label, path) => {
    let model: Esm2Model;
    beforeAll(async () => {
      const checkpoint = await loadEsm2Checkpoint(path);
      expect(checkpoint.config).toMatchObject({ numLayers: 2, embedDim: 64, numHeads: 4, ffnDim: 256 });
      model = new Esm2Model(checkpoint.config, createEsm2Weights(checkpoint.config, checkpoint.tensors));
    });
    afterAll(() => model.dispose());

    it('hidden states and means of each sequence alone match the reference', async () => {
      for (let i = 0; i < fixture.sequences.length; i++) {
        const tokens = tokenizeProtein(fixture.sequences[i]);
        const { hidden, layout } = model.forwardPacked([tokens]);
        const h = compare(hidden.dataSync(), toFloat32(fixture.expected.get(`hidden.${i}`)!));
        hidden.dispose();
        layout.dispose();
        expect(h.maxAbs, `hidden.${i}`).toBeLessThanOrEqual(HIDDEN_TOL);
        expect(h.cosine, `hidden.${i}`).toBeGreaterThanOrEqual(MIN_COSINE);
        const [mean] = await model.meanEmbeddings([tokens]);
        const m = compare(mean, toFloat32(fixture.expected.get(`mean.${i}`)!));
        expect(m.maxAbs, `mean.${i}`).toBeLessThanOrEqual(MEAN_TOL);
        expect(m.cosine, `mean.${i}`).toBeGreaterThanOrEqual(MIN_COSINE);
      }
    });

    it('one packed batch of all sequences matches the reference per sequence and the padded batch', async () => {
      const tokens = fixture.sequences.map((s) => tokenizeProtein(s));
      // Reverse order so segment positions differ from the single-sequence runs.
      const order = tokens.map((_, i) => tokens.length - 1 - i);
      const { hidden, layout } = model.forwardPacked(order.map((i) => tokens[i]));
      const packed = hidden.dataSync();
      const d = model.dim;
      const batch = fixture.expected.get('batch.hidden')!;
      const batchValues = toFloat32(batch);
      const batchMask = fixture.expected.get('batch.attention_mask')!.data as Int32Array;
      const T = batch.shape[1];
      order.forEach((i, s) => {
        const rows = packed.subarray(layout.offsets[s] * d, layout.offsets[s + 1] * d);
        const alone = compare(rows, toFloat32(fixture.expected.get(`hidden.${i}`)!));
        expect(alone.maxAbs, `packed hidden.${i}`).toBeLessThanOrEqual(HIDDEN_TOL);
        const len = tokens[i].length;
        expect(batchMask.subarray(i * T, i * T + T).reduce((a, b) => a + b, 0)).toBe(len);
        const padded = compare(rows, batchValues.subarray(i * T * d, (i * T + len) * d));
        expect(padded.maxAbs, `batch.hidden[${i}]`).toBeLessThanOrEqual(HIDDEN_TOL);
        expect(padded.cosine).toBeGreaterThanOrEqual(MIN_COSINE);
      });
      hidden.dispose();
      layout.dispose();
      const means = await model.meanEmbeddings(order.map((i) => tokens[i]));
      order.forEach((i, s) => {
        const m = compare(means[s], toFloat32(fixture.expected.get(`mean.${i}`)!));
        expect(m.maxAbs, `packed mean.${i}`).toBeLessThanOrEqual(MEAN_TOL);
        expect(m.cosine).toBeGreaterThanOrEqual(MIN_COSINE);
      });
    });

    it('leaks no tensors per batch', async () => {
      const tokens = fixture.sequences.slice(0, 4).map((s) => tokenizeProtein(s));
      await model.meanEmbeddings(tokens);
      const before = tf.memory().numTensors;
      await model.meanEmbeddings(tokens);
      expect(tf.memory().numTensors).toBe(before);
    });
  });
});
