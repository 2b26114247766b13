#!/usr/bin/env node
// Generates the tiny RANDOM demo models in test-data/demo-models/ (committed). They have the real
// architectures and file formats (ESM-2 and DNABERT-S as Hugging Face folders with config.json +
// model.safetensors, DNABERT-S with the REAL tokenizer.json; VirNucPro MLPs as safetensors) so that
// `virnucpro predict` runs end to end in seconds on any machine — but the weights are random:
// the viral/non-viral calls they produce MEAN NOTHING. Use `virnucpro models download` for real models.
//
// Usage (after `npm run build`): node tools/make-demo-models.mjs [OUT_DIR] [--esm L,D,H,FFN] [--dnabert L,D,H,INTER]
// Deterministic: the same script writes the same bytes. --esm / --dnabert choose other shapes (layers, hidden size,
// heads, feed-forward width; ESM-2 needs an even head size): the batch-invariance test of `predict` runs models of
// odd shapes (packages/cli/test/predict-invariance.test.ts). The defaults are the committed demo models.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSafetensors, float32ToFloat16Bits, halfBitsToNumber } from '@virnucpro/weights';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { positional, shapes } = parseArgs(process.argv.slice(2));
const out = resolve(positional[0] ?? join(root, 'test-data/demo-models'));

function parseArgs(argv) {
  const positional = [];
  const shapes = { esm: [1, 32, 2, 128], dnabert: [1, 32, 2, 64] };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].replace(/^--/, '');
    if (!argv[i].startsWith('--')) positional.push(argv[i]);
    else if (name in shapes) {
      const values = (argv[++i] ?? '').split(',').map(Number);
      if (values.length !== 4 || !values.every((v) => Number.isInteger(v) && v > 0)) throw new Error(`--${name}: expected LAYERS,HIDDEN,HEADS,FFN (positive integers), got '${argv[i]}'`);
      if (values[1] % values[2] !== 0) throw new Error(`--${name}: hidden size ${values[1]} is not a multiple of ${values[2]} heads`);
      if (name === 'esm' && (values[1] / values[2]) % 2 !== 0) throw new Error(`--esm: head size ${values[1] / values[2]} must be even (rotary)`);
      shapes[name] = values;
    } else throw new Error(`unknown option ${argv[i]}`);
  }
  return { positional, shapes };
}
const tokenizerJson = join(root, 'test-data/demo-models/dnabert-s-demo/tokenizer.json');

// Small deterministic PRNG (mulberry32) + Box-Muller, so the committed files can be regenerated exactly.
function rng(seed) {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => Math.sqrt(-2 * Math.log(uniform() + 1e-12)) * Math.cos(2 * Math.PI * uniform());
  return { uniform, normal };
}

function makeTensors(seed) {
  const r = rng(seed);
  const t = {};
  const f32 = (shape, fill) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = fill(i);
    return { dtype: 'float32', shape, data };
  };
  return {
    t,
    /** weight [out, in] scaled 1/sqrt(in) so activations stay O(1) */
    linear(name, out, inp, bias = true) {
      t[`${name}.weight`] = f32([out, inp], () => r.normal() / Math.sqrt(inp));
      if (bias) t[`${name}.bias`] = f32([out], () => 0.05 * r.normal());
    },
    norm(name, d) {
      t[`${name}.weight`] = f32([d], () => 1 + 0.1 * r.normal());
      t[`${name}.bias`] = f32([d], () => 0.05 * r.normal());
    },
    embedding(name, rows, d) {
      t[name] = f32([rows, d], () => r.normal());
    },
    raw: f32,
    r,
  };
}

// ---- ESM-2 (fair-esm architecture, HF names): by default 1 layer, hidden 32, 2 heads, FFN 128, vocab 33 ----
function esm2(dir) {
  const [layers, d, heads, ffn] = shapes.esm;
  const vocab = 33;
  const m = makeTensors(1);
  m.embedding('esm.embeddings.word_embeddings.weight', vocab, d);
  const hd = d / heads;
  // rotary inv_freq rounded to fp16, as in the released ESM-2 checkpoints
  const invFreq = new Float32Array(hd / 2).map((_, j) => 10000 ** ((-2 * j) / hd));
  const inv16 = Float32Array.from(float32ToFloat16Bits(invFreq), halfBitsToNumber);
  for (let l = 0; l < layers; l++) {
    const p = `esm.encoder.layer.${l}`;
    for (const x of ['query', 'key', 'value']) m.linear(`${p}.attention.self.${x}`, d, d);
    m.t[`${p}.attention.self.rotary_embeddings.inv_freq`] = { dtype: 'float32', shape: [hd / 2], data: inv16.slice() };
    m.linear(`${p}.attention.output.dense`, d, d);
    m.norm(`${p}.attention.LayerNorm`, d);
    m.linear(`${p}.intermediate.dense`, ffn, d);
    m.linear(`${p}.output.dense`, d, ffn);
    m.norm(`${p}.LayerNorm`, d);
  }
  m.norm('esm.encoder.emb_layer_norm_after', d);
  m.t['esm.rotary_embeddings.inv_freq'] = { dtype: 'float32', shape: [hd / 2], data: inv16.slice() };
  const config = {
    architectures: ['EsmForMaskedLM'], model_type: 'esm', vocab_size: vocab, mask_token_id: 32, pad_token_id: 1,
    hidden_size: d, num_hidden_layers: layers, num_attention_heads: heads, intermediate_size: ffn,
    hidden_dropout_prob: 0.0, attention_probs_dropout_prob: 0.0, max_position_embeddings: 1026,
    layer_norm_eps: 1e-5, position_embedding_type: 'rotary', emb_layer_norm_before: false, token_dropout: true,
    hidden_act: 'gelu', _comment: 'virnucpro-ts DEMO model: random weights, its outputs mean nothing',
  };
  return write(dir, m.t, config);
}

// ---- DNABERT-S (MosaicBERT: ALiBi, GeGLU, post-LN; names as in the DNABERT-S checkpoint) ----
function dnabert(dir) {
  const [layers, d, heads, inter] = shapes.dnabert;
  const vocab = 4096;
  const m = makeTensors(2);
  m.embedding('embeddings.word_embeddings.weight', vocab, d);
  m.embedding('embeddings.token_type_embeddings.weight', 2, d);
  m.norm('embeddings.LayerNorm', d);
  for (let l = 0; l < layers; l++) {
    const p = `encoder.layer.${l}`;
    m.linear(`${p}.attention.self.Wqkv`, 3 * d, d);
    m.linear(`${p}.attention.output.dense`, d, d);
    m.norm(`${p}.attention.output.LayerNorm`, d);
    m.linear(`${p}.mlp.gated_layers`, 2 * inter, d, false);
    m.linear(`${p}.mlp.wo`, d, inter);
    m.norm(`${p}.mlp.layernorm`, d);
  }
  m.linear('pooler.dense', d, d);
  const config = {
    architectures: ['BertModel'], model_type: 'bert', vocab_size: vocab, hidden_size: d, num_hidden_layers: layers,
    num_attention_heads: heads, intermediate_size: inter, hidden_act: 'gelu', hidden_dropout_prob: 0.0,
    attention_probs_dropout_prob: 0.0, max_position_embeddings: 512, type_vocab_size: 2, layer_norm_eps: 1e-12,
    pad_token_id: 0, alibi_starting_size: 512,
    _comment: 'virnucpro-ts DEMO model: random weights, its outputs mean nothing',
  };
  return write(dir, m.t, config);
}

// ---- VirNucPro MLP: Linear(in→H) → BatchNorm1d(H) → ReLU → Dropout → Linear(H→2) ----
function mlp(path, inputDim, seed) {
  const H = 16;
  const m = makeTensors(seed);
  m.linear('hidden_layer', H, inputDim);
  m.norm('bn1', H);
  m.t['bn1.running_mean'] = m.raw([H], () => 0.1 * m.r.normal());
  m.t['bn1.running_var'] = m.raw([H], () => 0.5 + m.r.uniform());
  m.linear('output_layer', 2, H);
  return writeSafetensors(path, m.t, { format: 'pt', note: 'virnucpro-ts DEMO MLP: random weights, its calls mean nothing' });
}

async function write(dir, tensors, config) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
  await writeSafetensors(join(dir, 'model.safetensors'), tensors, { format: 'pt' });
}

mkdirSync(out, { recursive: true });
await esm2(join(out, 'esm2-demo'));
await dnabert(join(out, 'dnabert-s-demo'));
const tokDest = join(out, 'dnabert-s-demo/tokenizer.json');
if (resolve(tokDest) !== resolve(tokenizerJson)) copyFileSync(tokenizerJson, tokDest);
const features = shapes.esm[1] + shapes.dnabert[1];
await mlp(join(out, 'mlp-demo-300.safetensors'), features, 3);
await mlp(join(out, 'mlp-demo-500.safetensors'), features, 4);
writeFileSync(
  join(out, 'models.json'),
  JSON.stringify(
    {
      esm: 'esm2-demo',
      dnabert: 'dnabert-s-demo',
      mlp: { 300: 'mlp-demo-300.safetensors', 500: 'mlp-demo-500.safetensors' },
      note: 'DEMO models with RANDOM weights (tools/make-demo-models.mjs): they exercise the pipeline; their calls mean nothing.',
    },
    null,
    2,
  ) + '\n',
);
// The marker `virnucpro predict` looks for next to a model to remind the user that its calls mean nothing.
writeFileSync(
  join(out, 'DEMO-RANDOM-WEIGHTS'),
  'The models in this folder have RANDOM weights (tools/make-demo-models.mjs): they exercise the pipeline;\n' +
    'their virus / others calls mean nothing. `virnucpro predict` sees this file next to a model it uses and\n' +
    'prints a reminder on stderr. Real models: `virnucpro models download`.\n',
);
console.log(`wrote demo models to ${out}`);
