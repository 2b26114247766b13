import { basename } from 'node:path';
import { toFloat32, type TensorData } from '@virnucpro/weights';
import { convertedDnabertLayout, recognizeDnabertLayout } from './checkpoint-layout.js';
import type { DnabertConfig } from './dnabert-config.js';

// State-dict names of MosaicBERT `BertModel` as saved by DNABERT-S (no prefix). DNABERT-2-117M
// stores the same tensors under `bert.` next to an MLM head (`cls.*`), which is ignored.

export interface DnabertLayerWeights {
  wqkv: Float32Array; // [3d, d]: rows 0..d-1 = Q, d..2d-1 = K, 2d..3d-1 = V
  bqkv: Float32Array;
  attnOut: Float32Array; // [d, d]
  attnOutBias: Float32Array;
  attnLnGamma: Float32Array;
  attnLnBeta: Float32Array;
  gated: Float32Array; // [2I, d], no bias; rows 0..I-1 are the GELU-gated half
  mlpOut: Float32Array; // [d, I]
  mlpOutBias: Float32Array;
  mlpLnGamma: Float32Array;
  mlpLnBeta: Float32Array;
}

export interface DnabertWeights {
  wordEmbeddings: Float32Array; // [V, d]
  tokenTypeEmbeddings: Float32Array; // [types, d]; row 0 is added to every token
  embLnGamma: Float32Array;
  embLnBeta: Float32Array;
  layers: DnabertLayerWeights[];
}

/** The tensors a DnabertConfig needs, by canonical (un-prefixed) name, with their shapes. */
export function expectedDnabertTensors(config: DnabertConfig): Map<string, number[]> {
  const { vocabSize: V, hiddenSize: d, intermediateSize: I } = config;
  const shapes = new Map<string, number[]>([
    ['embeddings.word_embeddings.weight', [V, d]],
    ['embeddings.token_type_embeddings.weight', [-1, d]],
    ['embeddings.LayerNorm.weight', [d]],
    ['embeddings.LayerNorm.bias', [d]],
  ]);
  for (let i = 0; i < config.numLayers; i++) {
    const p = `encoder.layer.${i}.`;
    shapes.set(`${p}attention.self.Wqkv.weight`, [3 * d, d]);
    shapes.set(`${p}attention.self.Wqkv.bias`, [3 * d]);
    shapes.set(`${p}attention.output.dense.weight`, [d, d]);
    shapes.set(`${p}attention.output.dense.bias`, [d]);
    shapes.set(`${p}attention.output.LayerNorm.weight`, [d]);
    shapes.set(`${p}attention.output.LayerNorm.bias`, [d]);
    shapes.set(`${p}mlp.gated_layers.weight`, [2 * I, d]);
    shapes.set(`${p}mlp.wo.weight`, [d, I]);
    shapes.set(`${p}mlp.wo.bias`, [d]);
    shapes.set(`${p}mlp.layernorm.weight`, [d]);
    shapes.set(`${p}mlp.layernorm.bias`, [d]);
  }
  return shapes;
}

/** Strips the DNABERT-2 `bert.` prefix when the checkpoint uses it. */
export function canonicalDnabertNames(tensors: Map<string, TensorData>): Map<string, TensorData> {
  const prefixed = [...tensors.keys()].some((name) => name.startsWith('bert.embeddings.') || name.startsWith('bert.encoder.'));
  if (!prefixed) return tensors;
  const out = new Map<string, TensorData>();
  for (const [name, t] of tensors) if (name.startsWith('bert.')) out.set(name.slice(5), t);
  return out;
}

/**
 * Checks names and shapes against the config and widens everything to float32. A refusal names the layout the
 * checkpoint follows and its first missing tensor as the checkpoint names it (or says that no layout matched).
 */
export function dnabertWeightsFromStateDict(stateDict: Map<string, TensorData>, config: DnabertConfig, source: string): DnabertWeights {
  const layout = basename(source) === 'model.json' ? convertedDnabertLayout : recognizeDnabertLayout(stateDict.keys(), source);
  const tensors = canonicalDnabertNames(stateDict);
  const shapes = expectedDnabertTensors(config);
  const missing = [...shapes.keys()].filter((name) => !tensors.has(name));
  if (missing.length) {
    throw new Error(
      `${source}: recognised the ${layout.description} layout of DNABERT-S, but ${layout.prefix}${missing[0]} is missing ` +
        `(${missing.length} of the ${shapes.size} tensors a ${config.numLayers}-layer model needs)`,
    );
  }
  const take = (name: string, shape: number[]): Float32Array => {
    const t = tensors.get(name)!;
    const ok = t.shape.length === shape.length && shape.every((n, i) => n === -1 || n === t.shape[i]);
    if (!ok) throw new Error(`${source}: tensor "${layout.prefix}${name}" has shape [${t.shape}], expected [${shape.map((n) => (n < 0 ? '*' : n))}] for this config.json`);
    return toFloat32(t);
  };
  const get = (name: string) => take(name, shapes.get(name)!);
  const layers: DnabertLayerWeights[] = [];
  for (let i = 0; i < config.numLayers; i++) {
    const p = `encoder.layer.${i}.`;
    layers.push({
      wqkv: get(`${p}attention.self.Wqkv.weight`),
      bqkv: get(`${p}attention.self.Wqkv.bias`),
      attnOut: get(`${p}attention.output.dense.weight`),
      attnOutBias: get(`${p}attention.output.dense.bias`),
      attnLnGamma: get(`${p}attention.output.LayerNorm.weight`),
      attnLnBeta: get(`${p}attention.output.LayerNorm.bias`),
      gated: get(`${p}mlp.gated_layers.weight`),
      mlpOut: get(`${p}mlp.wo.weight`),
      mlpOutBias: get(`${p}mlp.wo.bias`),
      mlpLnGamma: get(`${p}mlp.layernorm.weight`),
      mlpLnBeta: get(`${p}mlp.layernorm.bias`),
    });
  }
  return {
    wordEmbeddings: get('embeddings.word_embeddings.weight'),
    tokenTypeEmbeddings: get('embeddings.token_type_embeddings.weight'),
    embLnGamma: get('embeddings.LayerNorm.weight'),
    embLnBeta: get('embeddings.LayerNorm.bias'),
    layers,
  };
}
