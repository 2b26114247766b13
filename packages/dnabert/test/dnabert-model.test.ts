import { readSafetensors, type TensorData } from '@virnucpro/weights';
import type { BackendName } from '@virnucpro/ops';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDnabertEmbedder, loadDnabert, type LoadedDnabert } from '../src/index.js';
import { cosine, maxAbsDiff, tinyDir, tinyInputs } from './parity-helpers.js';
import { startCompute } from '@virnucpro/compute';

// Parity with the PyTorch MosaicBERT reference (test-data/dnabert/tiny/expected.safetensors).
let expected: Map<string, TensorData>;
beforeAll(async () => {
  expected = (await readSafetensors(`${tinyDir}/expected.safetensors`)).tensors;
});
const f32 = (name: string) => expected.get(name)!.data as Float32Array;
const ids = () => tinyInputs.token_ids.map((t) => Int32Array.from(t));

describe.each<BackendName>(['cpu', 'wasm'])('DNABERT tiny on %s', (backend) => {
  let loaded: LoadedDnabert;
  beforeAll(async () => {
    expect((await startCompute({ backend })).backend).toBe(backend);
    loaded = await loadDnabert(tinyDir);
  });
  afterAll(() => loaded?.model.dispose());

  it('each sequence alone: hidden states and means match PyTorch', async () => {
    for (const [i, t] of ids().entries()) {
      const [hidden] = await loaded.model.hiddenStates([t]);
      expect(maxAbsDiff(hidden, f32(`hidden.${i}`))).toBeLessThanOrEqual(1e-4);
      const [mean] = await loaded.model.meanEmbeddings([t]);
      expect(maxAbsDiff(mean, f32(`mean.${i}`))).toBeLessThanOrEqual(1e-5);
      expect(cosine(mean, f32(`mean.${i}`))).toBeGreaterThanOrEqual(0.99999);
    }
  });

  it('all sequences packed in one batch equal the single-sequence reference', async () => {
    const hidden = await loaded.model.hiddenStates(ids());
    const means = await loaded.model.meanEmbeddings(ids());
    hidden.forEach((h, i) => expect(maxAbsDiff(h, f32(`hidden.${i}`))).toBeLessThanOrEqual(1e-4));
    means.forEach((m, i) => {
      expect(maxAbsDiff(m, f32(`mean.${i}`))).toBeLessThanOrEqual(1e-5);
      expect(cosine(m, f32(`mean.${i}`))).toBeGreaterThanOrEqual(0.99999);
    });
  });

  it('the padded batch (input_ids + attention_mask) matches batch.hidden incl. zero pad rows', async () => {
    const input = expected.get('batch.input_ids')!;
    const [b, l] = input.shape;
    const out = await loaded.model.hiddenStatesPadded(
      input.data as Int32Array,
      expected.get('batch.attention_mask')!.data as Int32Array,
      b,
      l,
    );
    expect(maxAbsDiff(out, f32('batch.hidden'))).toBeLessThanOrEqual(1e-4);
  });

  it('the embedder tokenizes the raw sequences and returns the VirNucPro means', async () => {
    const embedder = await createDnabertEmbedder({ model: tinyDir });
    try {
      expect(embedder.dim).toBe(64);
      tinyInputs.sequences.forEach((s, i) => expect(embedder.tokenCount(s)).toBe(tinyInputs.token_ids[i].length));
      const means = await embedder.embed(tinyInputs.sequences);
      means.forEach((m, i) => expect(maxAbsDiff(m, f32(`mean.${i}`))).toBeLessThanOrEqual(1e-5));
      expect(await embedder.embed([])).toEqual([]);
      // the tokens it embedded, counted where it tokenizes (predict's run_summary reads them from here)
      expect(embedder.counters?.()).toEqual({ tokens: tinyInputs.token_ids.reduce((a, t) => a + t.length, 0) });
    } finally {
      embedder.dispose();
    }
  });

  it('leaks no tensors per batch', async () => {
    const before = tf.memory().numTensors;
    await loaded.model.meanEmbeddings(ids());
    await loaded.model.hiddenStates(ids().slice(0, 2));
    expect(tf.memory().numTensors).toBe(before);
  });
});
