// ESM-2 checkpoints come with Hugging Face names (esm.encoder.layer.N.attention.self.query...; transformers 5
// writes LayerNorm.gamma/.beta and one shared encoder.layer.*.…inv_freq) or fair-esm names
// (encoder.sentence_encoder.layers.N.self_attn.q_proj...). Both are mapped to one
// canonical set: fair-esm's ESM2 module state dict after its own prefix strip (pretrained.py
// upgrade_state_dict), which is also what a converted tfjs artifact stores.

const hfLayerParts: [RegExp, string][] = [
  [/^attention\.self\.query\./, 'self_attn.q_proj.'],
  [/^attention\.self\.key\./, 'self_attn.k_proj.'],
  [/^attention\.self\.value\./, 'self_attn.v_proj.'],
  [/^attention\.self\.rotary_embeddings\.inv_freq$/, 'self_attn.rot_emb.inv_freq'],
  [/^attention\.output\.dense\./, 'self_attn.out_proj.'],
  [/^attention\.LayerNorm\./, 'self_attn_layer_norm.'],
  [/^intermediate\.dense\./, 'fc1.'],
  [/^output\.dense\./, 'fc2.'],
  [/^LayerNorm\./, 'final_layer_norm.'],
];

/** Tensors present in released checkpoints that an embedding forward pass does not use. */
const unusedPatterns: RegExp[] = [
  /^lm_head\./,
  /^contact_head\./,
  /^pooler\./,
  /^embeddings\.position_embeddings\.weight$/, // legacy, unused by the rotary model
  /^embeddings\.position_ids$/,
];

export type CanonicalName = string;

/**
 * The canonical name of a checkpoint tensor, `null` for tensors the embedder does not need, or
 * `undefined` for a name that belongs to no ESM-2 layout.
 */
export function canonicalEsm2Name(name: string): CanonicalName | null | undefined {
  let n = name;
  for (const prefix of ['esm.', 'encoder.sentence_encoder.']) if (n.startsWith(prefix)) n = n.slice(prefix.length);
  if (unusedPatterns.some((re) => re.test(n))) return null;
  // Hugging Face layout
  if (n === 'embeddings.word_embeddings.weight') return 'embed_tokens.weight';
  if (n.startsWith('encoder.emb_layer_norm_after.')) return n.slice('encoder.'.length);
  // transformers ≥5: one model-level copy, saved under a `*` layer index
  if (n === 'rotary_embeddings.inv_freq' || n === 'encoder.layer.*.attention.self.rotary_embeddings.inv_freq') return 'rot_emb.inv_freq';
  const hf = /^encoder\.layer\.(\d+)\.(.+)$/.exec(n);
  if (hf) {
    const part = hf[2].replace(/LayerNorm\.gamma$/, 'LayerNorm.weight').replace(/LayerNorm\.beta$/, 'LayerNorm.bias');
    for (const [re, replacement] of hfLayerParts) {
      if (re.test(part)) return `layers.${hf[1]}.${part.replace(re, replacement)}`;
    }
    return undefined;
  }
  // fair-esm layout (the plain `encoder.` prefix is stripped by fair-esm as well)
  if (n.startsWith('encoder.')) n = n.slice('encoder.'.length);
  if (n === 'embed_tokens.weight' || n.startsWith('emb_layer_norm_after.')) return n;
  if (/^layers\.\d+\.(self_attn\.(q_proj|k_proj|v_proj|out_proj)\.(weight|bias)|self_attn\.rot_emb\.inv_freq|self_attn_layer_norm\.(weight|bias)|fc1\.(weight|bias)|fc2\.(weight|bias)|final_layer_norm\.(weight|bias))$/.test(n)) {
    return n;
  }
  if (unusedPatterns.some((re) => re.test(n))) return null;
  return undefined;
}

/** Canonical names of every tensor an ESM-2 forward pass needs (inv_freq excepted: it may be recomputed). */
export function requiredEsm2Names(numLayers: number): CanonicalName[] {
  const names = ['embed_tokens.weight', 'emb_layer_norm_after.weight', 'emb_layer_norm_after.bias'];
  for (let i = 0; i < numLayers; i++) {
    for (const part of ['self_attn.q_proj', 'self_attn.k_proj', 'self_attn.v_proj', 'self_attn.out_proj', 'self_attn_layer_norm', 'fc1', 'fc2', 'final_layer_norm']) {
      names.push(`layers.${i}.${part}.weight`, `layers.${i}.${part}.bias`);
    }
  }
  return names;
}
