import { readFile } from 'node:fs/promises';

/** The MosaicBERT hyper-parameters a forward pass needs (from HF `config.json`). */
export interface DnabertConfig {
  vocabSize: number;
  hiddenSize: number;
  numLayers: number;
  numHeads: number;
  intermediateSize: number;
  layerNormEps: number;
}

/** DNABERT-S / DNABERT-2-117M (evaluate/model_codes/config.json). */
export const dnabertSConfig: DnabertConfig = {
  vocabSize: 4096,
  hiddenSize: 768,
  numLayers: 12,
  numHeads: 12,
  intermediateSize: 3072,
  layerNormEps: 1e-12,
};

function positiveInt(json: Record<string, unknown>, key: string, source: string): number {
  const v = json[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new Error(`${source}: "${key}" must be a positive integer, got ${JSON.stringify(v)}`);
  return v;
}

/** Reads HF `config.json` fields; checks the activation is exact GELU (MosaicBERT's GeGLU uses it). */
export function parseDnabertConfig(json: unknown, source = 'config.json'): DnabertConfig {
  if (typeof json !== 'object' || json === null) throw new Error(`${source}: expected a JSON object`);
  const c = json as Record<string, unknown>;
  const act = c.hidden_act ?? 'gelu';
  if (act !== 'gelu') throw new Error(`${source}: hidden_act "${String(act)}" is not supported (MosaicBERT GeGLU uses exact "gelu")`);
  const config: DnabertConfig = {
    vocabSize: positiveInt(c, 'vocab_size', source),
    hiddenSize: positiveInt(c, 'hidden_size', source),
    numLayers: positiveInt(c, 'num_hidden_layers', source),
    numHeads: positiveInt(c, 'num_attention_heads', source),
    intermediateSize: positiveInt(c, 'intermediate_size', source),
    layerNormEps: typeof c.layer_norm_eps === 'number' ? c.layer_norm_eps : 1e-12,
  };
  if (config.hiddenSize % config.numHeads !== 0) throw new Error(`${source}: hidden_size ${config.hiddenSize} is not divisible by num_attention_heads ${config.numHeads}`);
  return config;
}

export async function readDnabertConfig(path: string): Promise<DnabertConfig> {
  const text = await readFile(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path}: not valid JSON (${(err as Error).message})`);
  }
  return parseDnabertConfig(json, path);
}

/** The HF config.json fields for a config (written next to converted artifacts). */
export function toHfConfigJson(config: DnabertConfig): Record<string, unknown> {
  return {
    architectures: ['BertModel'],
    model_type: 'bert',
    vocab_size: config.vocabSize,
    hidden_size: config.hiddenSize,
    num_hidden_layers: config.numLayers,
    num_attention_heads: config.numHeads,
    intermediate_size: config.intermediateSize,
    hidden_act: 'gelu',
    layer_norm_eps: config.layerNormEps,
    type_vocab_size: 2,
  };
}
