// Which of the known ESM-2 naming layouts a checkpoint uses, so that a refusal can say what it recognised and
// name a missing tensor as the checkpoint itself would (not in our canonical fair-esm names).
import type { CanonicalName } from './checkpoint-names.js';

export interface Esm2Layout {
  /** For messages: "Hugging Face transformers 5, EsmForMaskedLM (esm. prefix)". */
  description: string;
  /** The name this layout gives a canonical tensor. */
  checkpointName(canonical: CanonicalName): string;
}

/** The layouts a refusal lists when none matched. */
export const knownEsm2Layouts = [
  'Hugging Face transformers 4 or 5 (EsmModel: encoder.layer.0.attention.self.query.weight; EsmForMaskedLM: the same under esm.)',
  'fair-esm (encoder.sentence_encoder.layers.0.self_attn.q_proj.weight, or without the prefix)',
  'a folder written by virnucpro convert esm2 (model.json)',
].join('; ');

/** A converted artifact stores canonical names. */
export const canonicalLayout: Esm2Layout = { description: 'virnucpro convert esm2 artifact', checkpointName: (name) => name };

// Canonical layer part → Hugging Face layer part (transformers 5 writes LayerNorm.gamma/.beta for weight/bias).
const hfParts: [string, string][] = [
  ['self_attn.q_proj.', 'attention.self.query.'],
  ['self_attn.k_proj.', 'attention.self.key.'],
  ['self_attn.v_proj.', 'attention.self.value.'],
  ['self_attn.out_proj.', 'attention.output.dense.'],
  ['self_attn_layer_norm.', 'attention.LayerNorm.'],
  ['fc1.', 'intermediate.dense.'],
  ['fc2.', 'output.dense.'],
  ['final_layer_norm.', 'LayerNorm.'],
];

function huggingFaceLayout(prefix: string, transformers5: boolean): Esm2Layout {
  const model = prefix ? `EsmForMaskedLM (${prefix} prefix)` : 'EsmModel (no prefix)';
  return {
    description: `Hugging Face transformers ${transformers5 ? '5' : '4'}, ${model}`,
    checkpointName(canonical) {
      if (canonical === 'embed_tokens.weight') return `${prefix}embeddings.word_embeddings.weight`;
      if (canonical.startsWith('emb_layer_norm_after.')) return `${prefix}encoder.${canonical}`;
      const layer = /^layers\.(\d+)\.(.+)$/.exec(canonical);
      if (!layer) return `${prefix}${canonical}`;
      for (const [ours, theirs] of hfParts) {
        if (!layer[2].startsWith(ours)) continue;
        let part = theirs + layer[2].slice(ours.length);
        if (transformers5) part = part.replace(/LayerNorm\.weight$/, 'LayerNorm.gamma').replace(/LayerNorm\.bias$/, 'LayerNorm.beta');
        return `${prefix}encoder.layer.${layer[1]}.${part}`;
      }
      return `${prefix}encoder.layer.${layer[1]}.${layer[2]}`;
    },
  };
}

function fairEsmLayout(prefix: string): Esm2Layout {
  return {
    description: prefix ? `fair-esm (${prefix} prefix)` : 'fair-esm (no prefix)',
    checkpointName: (canonical) => `${prefix}${canonical}`,
  };
}

/** The layout the tensor names follow, or undefined when they follow none of the known ones. */
export function recognizeEsm2Layout(names: Iterable<string>): Esm2Layout | undefined {
  const all = [...names];
  const hf = all.map((n) => /^(esm\.)?(?:encoder\.layer\.(?:\d+|\*)\.|embeddings\.word_embeddings\.)/.exec(n)).find((m) => m);
  if (hf) {
    const transformers5 = all.some((n) => /LayerNorm\.(gamma|beta)$/.test(n) || n.includes('encoder.layer.*.'));
    return huggingFaceLayout(hf[1] ?? '', transformers5);
  }
  const fair = all.map((n) => /^(.*?)(?:layers\.\d+\.self_attn|embed_tokens\.weight$)/.exec(n)).find((m) => m);
  if (fair && /^(encoder\.sentence_encoder\.|encoder\.|)$/.test(fair[1])) return fairEsmLayout(fair[1]);
  return undefined;
}
