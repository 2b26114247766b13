// ESM-2 as transformers 5 saves it (LayerNorm.gamma/.beta, one shared `encoder.layer.*.…inv_freq`, no `esm.`
// prefix for the bare EsmModel), from test-data/esm2-transformers5 (copied from the shared fixtures), plus a
// sharded safetensors folder made from it; and refusals that name the layout they recognised.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BackendName } from '@virnucpro/ops';
import { readSafetensors, toFloat32, writeSafetensors } from '@virnucpro/weights';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEsm2Weights, Esm2Model, loadEsm2Checkpoint, tokenizeProtein } from '../src/index.js';
import { recognizeEsm2Layout } from '../src/checkpoint-layout.js';
import { compare } from './fixture.js';
import { startCompute } from '@virnucpro/compute';

const dir = fileURLToPath(new URL('../../../test-data/esm2-transformers5/', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'esm2-t5-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// The fp32 tolerances of the ESM-2 fixtures.
const HIDDEN_TOL = 1e-4;
const MEAN_TOL = 1e-5;

/** The masked-LM folder re-saved as two safetensors shards and a model.safetensors.index.json. */
async function shardedCopy(): Promise<string> {
  const out = join(tmp, 'sharded');
  cpSync(join(dir, 'masked-lm'), out, { recursive: true });
  rmSync(join(out, 'model.safetensors'));
  const { tensors } = await readSafetensors(join(dir, 'masked-lm', 'model.safetensors'));
  const names = [...tensors.keys()];
  const half = Math.ceil(names.length / 2);
  const weightMap: Record<string, string> = {};
  for (const [shard, part] of [['model-00001-of-00002.safetensors', names.slice(0, half)], ['model-00002-of-00002.safetensors', names.slice(half)]] as const) {
    await writeSafetensors(join(out, shard), new Map(part.map((n) => [n, tensors.get(n)!])), { format: 'pt' });
    for (const n of part) weightMap[n] = shard;
  }
  writeFileSync(join(out, 'model.safetensors.index.json'), JSON.stringify({ metadata: {}, weight_map: weightMap }));
  return out;
}

describe.each<BackendName>(['cpu', 'wasm'])('transformers 5 checkpoints on %s', (backend) => {
  let sequences: string[];
  let expected: Awaited<ReturnType<typeof readSafetensors>>['tensors'];
  beforeAll(async () => {
    expect((await startCompute({ backend })).backend).toBe(backend);
    sequences = (JSON.parse((await import('node:fs')).readFileSync(join(dir, 'inputs.json'), 'utf8')) as { sequences: string[] }).sequences;
    expected = (await readSafetensors(join(dir, 'expected.safetensors'))).tensors;
  });

  it.each([['EsmForMaskedLM', 'masked-lm'], ['EsmModel', 'base'], ['sharded safetensors', 'sharded']])('%s: hidden states and means match', async (_label, folder) => {
    const path = folder === 'sharded' ? await shardedCopy() : join(dir, folder);
    const checkpoint = await loadEsm2Checkpoint(path);
    expect(checkpoint.config).toMatchObject({ numLayers: 2, embedDim: 64, numHeads: 4, ffnDim: 256 });
    const model = new Esm2Model(checkpoint.config, createEsm2Weights(checkpoint.config, checkpoint.tensors));
    try {
      for (let i = 0; i < sequences.length; i++) {
        const tokens = tokenizeProtein(sequences[i]);
        const { hidden, layout } = model.forwardPacked([tokens]);
        const h = compare(hidden.dataSync(), toFloat32(expected.get(`hidden.${i}`)!));
        hidden.dispose();
        layout.dispose();
        expect(h.maxAbs, `hidden.${i}`).toBeLessThanOrEqual(HIDDEN_TOL);
        const [mean] = await model.meanEmbeddings([tokens]);
        expect(compare(mean, toFloat32(expected.get(`mean.${i}`)!)).maxAbs, `mean.${i}`).toBeLessThanOrEqual(MEAN_TOL);
      }
    } finally {
      model.dispose();
    }
  });
});

describe('ESM-2 layout recognition and refusals', () => {
  it('recognises each layout by its names', () => {
    expect(recognizeEsm2Layout(['esm.encoder.layer.0.LayerNorm.gamma'])?.description).toBe('Hugging Face transformers 5, EsmForMaskedLM (esm. prefix)');
    expect(recognizeEsm2Layout(['encoder.layer.*.attention.self.rotary_embeddings.inv_freq', 'encoder.layer.0.LayerNorm.weight'])?.description).toBe('Hugging Face transformers 5, EsmModel (no prefix)');
    expect(recognizeEsm2Layout(['esm.encoder.layer.0.LayerNorm.weight'])?.description).toBe('Hugging Face transformers 4, EsmForMaskedLM (esm. prefix)');
    expect(recognizeEsm2Layout(['encoder.sentence_encoder.layers.0.self_attn.q_proj.weight'])?.description).toBe('fair-esm (encoder.sentence_encoder. prefix)');
    expect(recognizeEsm2Layout(['bert.encoder.layers.0.Wqkv.weight'])).toBeUndefined();
  });

  it('a missing tensor is named in the checkpoint own naming, with the layout recognised', async () => {
    const out = join(tmp, 'missing');
    cpSync(join(dir, 'base'), out, { recursive: true });
    const { tensors } = await readSafetensors(join(dir, 'base', 'model.safetensors'));
    tensors.delete('encoder.layer.1.attention.LayerNorm.beta');
    await writeSafetensors(join(out, 'model.safetensors'), tensors);
    await expect(loadEsm2Checkpoint(out)).rejects.toThrow(
      `${join(out, 'model.safetensors')}: recognised the Hugging Face transformers 5, EsmModel (no prefix) layout of ESM-2, but encoder.layer.1.attention.LayerNorm.beta is missing (1 of the 35 tensors a 2-layer model needs)`,
    );
  });

  it('a file of no known layout names its tensors and the layouts read', async () => {
    const file = join(tmp, 'other.safetensors');
    await writeSafetensors(file, new Map([['bert.encoder.layer_x.weight', { dtype: 'float32', shape: [2], data: new Float32Array(2) }]]));
    await expect(loadEsm2Checkpoint(file)).rejects.toThrow(/other\.safetensors: no ESM-2 layout matched \(its tensors: bert\.encoder\.layer_x\.weight\); expected one of: Hugging Face transformers 4 or 5 .*fair-esm/);
  });

  it('a config.json of another model type is refused by name', async () => {
    const out = join(tmp, 'bert');
    cpSync(join(dir, 'base'), out, { recursive: true });
    writeFileSync(join(out, 'config.json'), JSON.stringify({ model_type: 'bert', hidden_size: 64 }));
    await expect(loadEsm2Checkpoint(out)).rejects.toThrow('model_type "bert" is not an ESM model');
  });
});
