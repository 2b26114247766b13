/** Architecture of an ESM-2 model (fair-esm ESM2 / HF EsmModel with rotary positions). */
export interface Esm2Config {
  numLayers: number;
  embedDim: number;
  numHeads: number;
  ffnDim: number;
  vocabSize: number;
  layerNormEps: number;
  /** Token-dropout rescale (0.88 with no `<mask>` tokens); true for every released ESM-2. */
  tokenDropout: boolean;
  /** A human-readable name (checkpoint file/folder or the HF _name_or_path). */
  name: string;
}

export const esm2Defaults = { vocabSize: 33, layerNormEps: 1e-5, tokenDropout: true } as const;

/** The released ESM-2 sizes (models-reference A.1); d/heads from fair-esm's ESM2 constructor. */
export const esm2Architectures: Record<string, Pick<Esm2Config, 'numLayers' | 'embedDim' | 'numHeads'>> = {
  esm2_t6_8M_UR50D: { numLayers: 6, embedDim: 320, numHeads: 20 },
  esm2_t12_35M_UR50D: { numLayers: 12, embedDim: 480, numHeads: 20 },
  esm2_t30_150M_UR50D: { numLayers: 30, embedDim: 640, numHeads: 20 },
  esm2_t33_650M_UR50D: { numLayers: 33, embedDim: 1280, numHeads: 20 },
  esm2_t36_3B_UR50D: { numLayers: 36, embedDim: 2560, numHeads: 40 },
  esm2_t48_15B_UR50D: { numLayers: 48, embedDim: 5120, numHeads: 40 },
};

export function headDim(config: Esm2Config): number {
  return config.embedDim / config.numHeads;
}

/** Reads a Hugging Face EsmConfig (config.json); rejects non-ESM-2 variants clearly. */
export function configFromHuggingFace(json: Record<string, unknown>, source: string): Esm2Config {
  const need = (key: string): number => {
    const v = json[key];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`${source}: expected a number in "${key}"`);
    return v;
  };
  if (typeof json.model_type === 'string' && json.model_type !== 'esm') {
    throw new Error(`${source}: model_type ${JSON.stringify(json.model_type)} is not an ESM model ("esm"); is this the other model's folder?`);
  }
  if (json.position_embedding_type !== undefined && json.position_embedding_type !== 'rotary') {
    throw new Error(`${source}: position_embedding_type ${JSON.stringify(json.position_embedding_type)} is not ESM-2's "rotary"`);
  }
  if (json.emb_layer_norm_before === true) throw new Error(`${source}: emb_layer_norm_before=true is ESM-1b, not ESM-2`);
  if (json.hidden_act !== undefined && json.hidden_act !== 'gelu') throw new Error(`${source}: hidden_act ${JSON.stringify(json.hidden_act)} is not "gelu"`);
  const name = typeof json._name_or_path === 'string' && json._name_or_path ? json._name_or_path : source;
  return validateConfig({
    numLayers: need('num_hidden_layers'),
    embedDim: need('hidden_size'),
    numHeads: need('num_attention_heads'),
    ffnDim: need('intermediate_size'),
    vocabSize: need('vocab_size'),
    layerNormEps: typeof json.layer_norm_eps === 'number' ? json.layer_norm_eps : esm2Defaults.layerNormEps,
    tokenDropout: typeof json.token_dropout === 'boolean' ? json.token_dropout : esm2Defaults.tokenDropout,
    name,
  }, source);
}

/** Reads fair-esm's `cfg['model']` (an argparse Namespace: encoder_layers, encoder_embed_dim, ...). */
export function configFromFairEsm(args: Record<string, unknown>, source: string): Esm2Config {
  const need = (key: string): number => {
    const v = args[key];
    if (typeof v !== 'number') throw new Error(`${source}: cfg['model'] has no number "${key}"`);
    return v;
  };
  const embedDim = need('encoder_embed_dim');
  return validateConfig({
    numLayers: need('encoder_layers'),
    embedDim,
    numHeads: need('encoder_attention_heads'),
    ffnDim: 4 * embedDim, // fair-esm hard-codes the FFN width (esm2.py)
    vocabSize: esm2Defaults.vocabSize,
    layerNormEps: esm2Defaults.layerNormEps,
    tokenDropout: typeof args.token_dropout === 'boolean' ? args.token_dropout : esm2Defaults.tokenDropout,
    name: source,
  }, source);
}

export function validateConfig(config: Esm2Config, source: string): Esm2Config {
  for (const key of ['numLayers', 'embedDim', 'numHeads', 'ffnDim', 'vocabSize'] as const) {
    if (!Number.isInteger(config[key]) || config[key] < 1) throw new Error(`${source}: ${key} must be a positive integer, got ${config[key]}`);
  }
  if (config.embedDim % config.numHeads !== 0 || headDim(config) % 2 !== 0) {
    throw new Error(`${source}: embedDim ${config.embedDim} / numHeads ${config.numHeads} must be an even head size`);
  }
  return config;
}
