// Probabilities of our MLP against PyTorch's on VirNucPro's MLPClassifier (whole pickled module), on random
// input and on a real merged feature file; also the same weights read from safetensors.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadStateDict, readSafetensors, toFloat32, writeSafetensors } from '@virnucpro/weights';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMlp, readFeatures } from '../src/index.js';


const dir = fileURLToPath(new URL('../../../test-data/consensus/mlp-virnucpro/', import.meta.url));
const modelPth = join(dir, 'model.pth');
const tmp = mkdtempSync(join(tmpdir(), 'consensus-mlp-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

describe('MLP parity with PyTorch (mlp-virnucpro fixture)', async () => {
  const expected = (await readSafetensors(join(dir, 'expected.safetensors'))).tensors;

  it('reads sizes from the weights (3328 → 512 → 2)', async () => {
    const mlp = await loadMlp(modelPth);
    expect([mlp.inputDim, mlp.hiddenDim, mlp.numClasses]).toEqual([3328, 512, 2]);
  });

  it('random input: probabilities within 1e-5', async () => {
    const mlp = await loadMlp(modelPth);
    const input = toFloat32(expected.get('input')!);
    const got = mlp.predict(input, 8);
    expect(maxAbsDiff(got, toFloat32(expected.get('probabilities')!))).toBeLessThan(1e-5);
  });

  it('real merged_orfs.pt: ids and probabilities within 1e-5', async () => {
    const mlp = await loadMlp(modelPth);
    const features = await readFeatures(join(dir, 'merged_orfs.pt'));
    expect(features.ids).toEqual(['synthetic_seq_1_chunk_1R1', 'synthetic_seq_1_chunk_1R2', 'synthetic_seq_2_chunk_1R1', 'synthetic_seq_2_chunk_1R2']);
    expect(features.dim).toBe(3328);
    const got = mlp.predict(features.data, features.ids.length);
    expect(maxAbsDiff(got, toFloat32(expected.get('real_merged_probabilities')!))).toBeLessThan(1e-5);
  });

  it('the same weights as safetensors give the same probabilities', async () => {
    const path = join(tmp, 'mlp.safetensors');
    await writeSafetensors(path, await loadStateDict(modelPth));
    const fromSafetensors = await loadMlp(path);
    const fromPth = await loadMlp(modelPth);
    const input = toFloat32(expected.get('input')!);
    expect(maxAbsDiff(fromSafetensors.predict(input), fromPth.predict(input))).toBe(0);
  });

  it('rejects a state dict that is not a VirNucPro MLP, naming the problem', async () => {
    const sd = await loadStateDict(modelPth);
    sd.delete('bn1.running_var');
    const path = join(tmp, 'broken.safetensors');
    await writeSafetensors(path, sd);
    await expect(loadMlp(path)).rejects.toThrow(`${path}: recognised the VirNucPro MLPClassifier layout of the MLP, but bn1.running_var is missing (1 of the 8 tensors it needs)`);
    // The same layout under a prefix (DataParallel's module.): named as the checkpoint names it.
    const wrapped = new Map([...sd].map(([name, t]) => [`module.${name}`, t]));
    wrapped.delete('module.output_layer.bias');
    await writeSafetensors(path, wrapped);
    await expect(loadMlp(path)).rejects.toThrow(`${path}: recognised the VirNucPro MLPClassifier layout (module. prefix) of the MLP, but module.bn1.running_var is missing (2 of the 8 tensors it needs)`);
    // No layout: a few of its names and what was expected.
    await writeSafetensors(path, new Map([['encoder.layer.0.attention.self.Wqkv.weight', sd.get('bn1.weight')!]]));
    await expect(loadMlp(path)).rejects.toThrow(/: no VirNucPro MLP layout matched \(its tensors: encoder\.layer\.0\.attention\.self\.Wqkv\.weight\); expected VirNucPro's MLPClassifier: hidden_layer/);
  });
});
