import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { PyObject, loadStateDict, readSafetensors, readTorchCheckpoint, toFloat32, type TensorData } from '../src/index.js';
import { fixture } from './paths.js';

type Expected = { dtype: string; shape: number[]; data: number[] };

function plain(t: TensorData): number[] {
  return Array.from(t.dtype === 'float16' || t.dtype === 'bfloat16' ? toFloat32(t) : (t.data as ArrayLike<number | bigint>), (x) => Number(x));
}

function expectSameTensor(a: TensorData, b: TensorData, name: string) {
  expect(a.dtype, name).toBe(b.dtype);
  expect(a.shape, name).toEqual(b.shape);
  expect(Buffer.compare(Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength), Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength)), name).toBe(0);
}

describe('torch zip checkpoints built by CPython pickle (make_fixtures.py)', () => {
  for (const file of ['tensors.pt', 'tensors.p4.pt', 'tensors.bigendian.pt', 'tensors.legacy.pt']) {
    it(`${file}: every tensor (strided, offset, broadcast, shared storage, all dtypes) equals plain indexing`, async () => {
      const expected = JSON.parse(await readFile(fixture('generated', 'tensors.json'), 'utf8')) as {
        tensors: Record<string, Expected>;
        meta: unknown;
      };
      const root = (await readTorchCheckpoint(fixture('generated', file))) as { tensors: Record<string, TensorData>; meta: unknown };
      expect(root.meta).toEqual(expected.meta);
      expect(Object.keys(root.tensors).sort()).toEqual(Object.keys(expected.tensors).sort());
      for (const [name, want] of Object.entries(expected.tensors)) {
        const got = root.tensors[name];
        expect(got.dtype, name).toBe(want.dtype);
        expect(got.shape, name).toEqual(want.shape);
        expect(plain(got), name).toEqual(want.data.map(Number));
      }
      // int64 stays exact (2^62 does not fit a double's mantissa... but is a power of two; check -2^40 and 2^62 as bigint)
      expect([...(root.tensors.longs.data as BigInt64Array)]).toEqual([42n, -(2n ** 40n), 2n ** 62n]);
    });
  }

  it('a whole pickled module flattens like module.state_dict(): params, persistent buffers, children; None skipped', async () => {
    const expected = JSON.parse(await readFile(fixture('generated', 'module.json'), 'utf8')) as { names: string[]; tensors: Record<string, Expected> };
    const sd = await loadStateDict(fixture('generated', 'module.pth'));
    expect([...sd.keys()]).toEqual(expected.names);
    for (const name of expected.names) {
      expect(sd.get(name)!.shape, name).toEqual(expected.tensors[name].shape);
      expect(plain(sd.get(name)!), name).toEqual(expected.tensors[name].data);
    }
  });
});

describe('reference fixtures written by PyTorch', () => {
  it('esm2-tiny pytorch_model.bin equals model.safetensors tensor by tensor, bit for bit', async () => {
    const bin = await loadStateDict(fixture('esm2-tiny', 'pytorch_model.bin'));
    const st = (await readSafetensors(fixture('esm2-tiny', 'model.safetensors'))).tensors;
    expect([...bin.keys()].sort()).toEqual([...st.keys()].sort());
    for (const [name, t] of st) expectSameTensor(bin.get(name)!, t, name);
  });

  it('esm2-tiny fair_esm.pt: the `model` dict equals the HF tensors under the documented name mapping; cfg is readable', async () => {
    const root = (await readTorchCheckpoint(fixture('esm2-tiny', 'fair_esm.pt'))) as { cfg: { model: PyObject } };
    const config = JSON.parse(await readFile(fixture('esm2-tiny', 'config.json'), 'utf8'));
    expect(root.cfg.model.className).toBe('argparse.Namespace');
    expect(root.cfg.model.dict).toMatchObject({
      encoder_layers: config.num_hidden_layers,
      encoder_embed_dim: config.hidden_size,
      encoder_attention_heads: config.num_attention_heads,
      token_dropout: true,
    });
    const fair = await loadStateDict(fixture('esm2-tiny', 'fair_esm.pt'));
    const hf = (await readSafetensors(fixture('esm2-tiny', 'model.safetensors'))).tensors;
    // models-reference.md §A.6 (fair-esm key after stripping "encoder.sentence_encoder." / "encoder." → HF key).
    const layerMap: [string, string][] = [
      ['self_attn.q_proj', 'attention.self.query'],
      ['self_attn.k_proj', 'attention.self.key'],
      ['self_attn.v_proj', 'attention.self.value'],
      ['self_attn.out_proj', 'attention.output.dense'],
      ['self_attn.rot_emb.inv_freq', 'attention.self.rotary_embeddings.inv_freq'],
      ['self_attn_layer_norm', 'attention.LayerNorm'],
      ['fc1', 'intermediate.dense'],
      ['fc2', 'output.dense'],
      ['final_layer_norm', 'LayerNorm'],
    ];
    const toHf = (fairName: string): string | undefined => {
      const n = fairName.replace(/^encoder\.sentence_encoder\./, '').replace(/^encoder\./, '');
      if (n === 'embed_tokens.weight') return 'esm.embeddings.word_embeddings.weight';
      if (n.startsWith('emb_layer_norm_after.')) return `esm.encoder.${n}`;
      if (n.startsWith('lm_head.')) return n;
      const m = /^layers\.(\d+)\.(.+)$/.exec(n);
      if (!m) return undefined;
      for (const [from, to] of layerMap) {
        if (m[2] === from || m[2].startsWith(`${from}.`)) return `esm.encoder.layer.${m[1]}.${to}${m[2].slice(from.length)}`;
      }
      return undefined;
    };
    let compared = 0;
    for (const [name, t] of fair) {
      const hfName = toHf(name);
      if (!hfName || !hf.has(hfName)) continue; // lm_head.weight is tied (not stored by HF)
      expectSameTensor(t, hf.get(hfName)!, `${name} ↔ ${hfName}`);
      compared++;
    }
    // Every encoder tensor of the HF model has a fair-esm counterpart.
    const hfEncoder = [...hf.keys()].filter((n) => n.startsWith('esm.encoder.') || n === 'esm.embeddings.word_embeddings.weight');
    expect(compared).toBeGreaterThanOrEqual(hfEncoder.length);
  });

  it('dnabert-tiny pytorch_model.bin equals model.safetensors bit for bit; a model directory loads too', async () => {
    const bin = await loadStateDict(fixture('dnabert-tiny', 'pytorch_model.bin'));
    const st = await loadStateDict(fixture('dnabert-tiny'));
    expect(bin.size).toBe(st.size);
    for (const [name, t] of st) expectSameTensor(bin.get(name)!, t, name);
  });

  it('VirNucPro whole-module model.pth: state_dict names, and the eval-mode MLP reproduces the reference probabilities', async () => {
    const sd = await loadStateDict(fixture('mlp-virnucpro', 'model.pth'));
    expect([...sd.keys()]).toEqual([
      'hidden_layer.weight',
      'hidden_layer.bias',
      'bn1.weight',
      'bn1.bias',
      'bn1.running_mean',
      'bn1.running_var',
      'bn1.num_batches_tracked',
      'output_layer.weight',
      'output_layer.bias',
    ]);
    expect(sd.get('bn1.num_batches_tracked')).toMatchObject({ dtype: 'int64', shape: [] });
    const { tensors: expected } = await readSafetensors(fixture('mlp-virnucpro', 'expected.safetensors'));
    const input = expected.get('input')!;
    const probabilities = mlpForward(sd, input.data as Float32Array, input.shape[0]);
    const want = expected.get('probabilities')!.data as Float32Array;
    expect(maxAbsDiff(probabilities, want)).toBeLessThanOrEqual(1e-5);

    // merged_orfs.pt: {'ids', 'data'} from the real tool; its probabilities are in the same file.
    const merged = (await readTorchCheckpoint(fixture('mlp-virnucpro', 'merged_orfs.pt'))) as { ids: string[]; data: TensorData };
    const inputs = JSON.parse(await readFile(fixture('mlp-virnucpro', 'inputs.json'), 'utf8'));
    expect(merged.ids).toEqual(inputs.real_merged_ids);
    expect(merged.data.shape).toEqual([4, 3328]);
    // virnucpro-reference.md §8 sanity values: synthetic_seq_1_chunk_1R1 DNABERT[:4].
    const head = [...(merged.data.data as Float32Array).subarray(0, 4)];
    [-0.07058205, 0.0671213, 0.02816012, -0.29251966].forEach((v, i) => expect(head[i]).toBeCloseTo(v, 7));
    const mergedProbabilities = mlpForward(sd, merged.data.data as Float32Array, 4);
    expect(maxAbsDiff(mergedProbabilities, expected.get('real_merged_probabilities')!.data as Float32Array)).toBeLessThanOrEqual(1e-5);
    expect([...(await loadStateDict(fixture('mlp-virnucpro', 'merged_orfs.pt'))).keys()]).toEqual(['data']);
  });

  it('e2e-tiny mlp.pth: MLPClassifier(128 → 16 → 2) shapes', async () => {
    const sd = await loadStateDict(fixture('e2e-tiny', 'mlp.pth'));
    expect(sd.get('hidden_layer.weight')!.shape).toEqual([16, 128]);
    expect(sd.get('bn1.running_var')!.shape).toEqual([16]);
    expect(sd.get('output_layer.weight')!.shape).toEqual([2, 16]);
  });

  it('clear errors for non-checkpoints', async () => {
    await expect(readTorchCheckpoint(fixture('esm2-tiny', 'config.json'))).rejects.toThrow(/config\.json: not a PyTorch checkpoint/);
    await expect(loadStateDict(fixture('esm2-tiny', 'config.json'))).rejects.toThrow(/unknown weights format/);
    await expect(loadStateDict(fixture('e2e-tiny', 'nothing-here.pt'))).rejects.toThrow(/no such file or directory/);
    await expect(loadStateDict(fixture('generated'))).rejects.toThrow(/generated: no weights found/);
  });
});

/** VirNucPro MLP in eval mode: Linear → BatchNorm1d(running stats, eps 1e-5) → ReLU → Linear → softmax, in float64. */
function mlpForward(sd: Map<string, TensorData>, x: Float32Array, rows: number): Float64Array {
  const get = (n: string) => sd.get(n)!.data as Float32Array;
  const [hidden, inDim] = sd.get('hidden_layer.weight')!.shape;
  const classes = sd.get('output_layer.weight')!.shape[0];
  const w1 = get('hidden_layer.weight'), b1 = get('hidden_layer.bias');
  const gamma = get('bn1.weight'), beta = get('bn1.bias'), mean = get('bn1.running_mean'), variance = get('bn1.running_var');
  const w2 = get('output_layer.weight'), b2 = get('output_layer.bias');
  const out = new Float64Array(rows * classes);
  const h = new Float64Array(hidden);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < hidden; j++) {
      let s = b1[j];
      for (let k = 0; k < inDim; k++) s += w1[j * inDim + k] * x[r * inDim + k];
      s = ((s - mean[j]) / Math.sqrt(variance[j] + 1e-5)) * gamma[j] + beta[j];
      h[j] = Math.max(0, s);
    }
    const logits = Array.from({ length: classes }, (_, c) => {
      let s = b2[c];
      for (let j = 0; j < hidden; j++) s += w2[c * hidden + j] * h[j];
      return s;
    });
    const m = Math.max(...logits);
    const e = logits.map((l) => Math.exp(l - m));
    const z = e.reduce((a, b) => a + b, 0);
    e.forEach((v, c) => (out[r * classes + c] = v / z));
  }
  return out;
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}
