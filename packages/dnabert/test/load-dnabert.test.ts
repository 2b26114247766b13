import { mkdtempSync, copyFileSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSafetensors, writeSafetensors, type TensorData } from '@virnucpro/weights';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDnabert } from '../src/index.js';
import { dnabertWeightsFromStateDict } from '../src/dnabert-weights.js';
import { parseDnabertConfig, readDnabertConfig } from '../src/dnabert-config.js';
import { readDnabertStateDict } from '../src/load-dnabert.js';
import { maxAbsDiff, tinyDir, tinyInputs } from './parity-helpers.js';
import { startCompute } from '@virnucpro/compute';

function modelDirWith(tensors: Map<string, TensorData>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'dnabert-'));
  for (const f of ['config.json', 'tokenizer.json']) copyFileSync(join(tinyDir, f), join(dir, f));
  return writeSafetensors(join(dir, 'model.safetensors'), tensors).then(() => dir);
}

describe('loading DNABERT checkpoints', () => {
  let original: Map<string, TensorData>;
  let expected: Map<string, TensorData>;
  beforeAll(async () => {
    await startCompute({ backend: 'cpu' });
    original = (await readSafetensors(join(tinyDir, 'model.safetensors'))).tensors;
    expected = (await readSafetensors(join(tinyDir, 'expected.safetensors'))).tensors;
  });

  it('reads config.json', async () => {
    expect(await readDnabertConfig(join(tinyDir, 'config.json'))).toEqual({
      vocabSize: 4096, hiddenSize: 64, numLayers: 2, numHeads: 4, intermediateSize: 128, layerNormEps: 1e-12,
    });
    expect(() => parseDnabertConfig({ ...JSON.parse(readFileSync(join(tinyDir, 'config.json'), 'utf8')), hidden_act: 'gelu_new' }, 'c.json')).toThrow(/c\.json: hidden_act/);
  });

  it('pytorch_model.bin holds the same tensors as model.safetensors, and loads to the same embeddings', async () => {
    const bin = join(tinyDir, 'pytorch_model.bin');
    const { tensors } = await readDnabertStateDict(tinyDir, bin);
    expect([...tensors.keys()].sort()).toEqual([...original.keys()].sort());
    for (const [name, t] of original) {
      expect(tensors.get(name)!.shape, name).toEqual(t.shape);
      expect(maxAbsDiff(tensors.get(name)!.data as Float32Array, t.data as Float32Array), name).toBe(0);
    }
    const { model, tokenizer, weightsPath } = await loadDnabert(tinyDir, { weights: bin });
    expect(weightsPath).toBe(bin);
    const [mean] = await model.meanEmbeddings([tokenizer.encode(tinyInputs.sequences[2])]);
    expect(maxAbsDiff(mean, expected.get('mean.2')!.data as Float32Array)).toBeLessThanOrEqual(1e-5);
    model.dispose();
  });

  it('accepts DNABERT-2-117M names (bert. prefix, MLM head ignored)', async () => {
    const prefixed = new Map<string, TensorData>();
    for (const [name, t] of original) prefixed.set(`bert.${name}`, t);
    prefixed.set('cls.predictions.decoder.weight', { dtype: 'float32', shape: [4096, 64], data: new Float32Array(4096 * 64) });
    const dir = await modelDirWith(prefixed);
    const { model } = await loadDnabert(dir);
    const [mean] = await model.meanEmbeddings([Int32Array.from(tinyInputs.token_ids[0])]);
    expect(maxAbsDiff(mean, expected.get('mean.0')!.data as Float32Array)).toBeLessThanOrEqual(1e-5);
    model.dispose();
  });

  it('a refusal names the layout recognised and the first missing tensor in the checkpoint\'s own naming, or that none matched', async () => {
    const config = { vocabSize: 4096, hiddenSize: 64, numLayers: 2, numHeads: 4, intermediateSize: 128, layerNormEps: 1e-12 };
    const missing = new Map(original);
    missing.delete('encoder.layer.1.mlp.wo.bias');
    expect(() => dnabertWeightsFromStateDict(missing, config, 'w.safetensors')).toThrow(
      'w.safetensors: recognised the DNABERT-S, MosaicBERT BertModel (no prefix) layout of DNABERT-S, but encoder.layer.1.mlp.wo.bias is missing (1 of the 26 tensors a 2-layer model needs)',
    );
    const prefixed = new Map([...missing].map(([name, t]) => [`bert.${name}`, t]));
    prefixed.delete('bert.embeddings.word_embeddings.weight');
    expect(() => dnabertWeightsFromStateDict(prefixed, config, 'w.safetensors')).toThrow(
      'w.safetensors: recognised the DNABERT-2, BertForMaskedLM (bert. prefix) layout of DNABERT-S, but bert.embeddings.word_embeddings.weight is missing (2 of the 26 tensors a 2-layer model needs)',
    );
    const standard = new Map([['encoder.layer.0.attention.self.query.weight', original.get('embeddings.LayerNorm.weight')!]]);
    expect(() => dnabertWeightsFromStateDict(standard, config, 'w.bin')).toThrow(/^w\.bin: recognised a standard BERT layout \(separate attention\.self\.query\/key\/value/);
    const esm = new Map([['esm.embeddings.word_embeddings.weight', original.get('embeddings.LayerNorm.weight')!]]);
    expect(() => dnabertWeightsFromStateDict(esm, config, 'w.bin')).toThrow(
      /^w\.bin: no DNABERT-S layout matched \(its tensors: esm\.embeddings\.word_embeddings\.weight\); expected one of: DNABERT-S, MosaicBERT BertModel/,
    );
    expect(() => dnabertWeightsFromStateDict(original, { ...config, intermediateSize: 96 }, 'w.safetensors'))
      .toThrow(/gated_layers\.weight" has shape \[256,64\], expected \[192,64\]/);
  });

  it('a directory without weights or config fails with a clear message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dnabert-empty-'));
    await expect(loadDnabert(dir)).rejects.toThrow(/missing config\.json/);
    copyFileSync(join(tinyDir, 'config.json'), join(dir, 'config.json'));
    copyFileSync(join(tinyDir, 'tokenizer.json'), join(dir, 'tokenizer.json'));
    await expect(loadDnabert(dir)).rejects.toThrow(/no weights found/);
    writeFileSync(join(dir, 'config.json'), '{ not json');
    await expect(loadDnabert(dir)).rejects.toThrow(/config\.json: not valid JSON/);
  });
});
