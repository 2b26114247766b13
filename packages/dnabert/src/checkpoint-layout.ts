// Which of the known DNABERT-S naming layouts a checkpoint uses, so that a refusal can say what it recognised and
// name a missing tensor as the checkpoint itself names it (ESM-2's checkpoint-layout.ts does the same).

export interface DnabertLayout {
  /** For messages: "DNABERT-2 BertForMaskedLM (bert. prefix)". */
  description: string;
  /** The prefix this layout puts before the canonical (DNABERT-S) names. */
  prefix: string;
}

/** The layouts a refusal lists when none matched. */
export const knownDnabertLayouts = [
  'DNABERT-S, MosaicBERT BertModel (embeddings.word_embeddings.weight, encoder.layer.0.attention.self.Wqkv.weight, …)',
  'DNABERT-2, BertForMaskedLM (the same under bert., beside its cls. head)',
  'a folder written by virnucpro convert dnabert (model.json)',
].join('; ');

/** A converted artifact stores canonical names. */
export const convertedDnabertLayout: DnabertLayout = { description: 'virnucpro convert dnabert artifact', prefix: '' };

const MOSAIC = /^(bert\.)?(?:embeddings\.word_embeddings\.weight$|encoder\.layer\.\d+\.(?:attention\.self\.Wqkv|mlp\.gated_layers|mlp\.wo)\.)/;
const STANDARD_BERT = /^(bert\.)?encoder\.layer\.\d+\.attention\.self\.(?:query|key|value)\./;

/**
 * The layout the tensor names follow. A standard BERT (separate query/key/value, as DNABERT-1 or bert-base save it)
 * and names that follow no known layout are refused here, each in one line naming what was found.
 */
export function recognizeDnabertLayout(names: Iterable<string>, source: string): DnabertLayout {
  const all = [...names].filter((n) => n !== '__metadata__');
  if (all.some((n) => STANDARD_BERT.test(n)) && !all.some((n) => n.includes('.attention.self.Wqkv.'))) {
    throw new Error(
      `${source}: recognised a standard BERT layout (separate attention.self.query/key/value, as DNABERT-1 or bert-base save it), ` +
        "not DNABERT-S's MosaicBERT (one fused attention.self.Wqkv): use the DNABERT-S model (zhihan1996/DNABERT-S)",
    );
  }
  const match = all.map((n) => MOSAIC.exec(n)).find((m) => m);
  if (match) {
    return match[1]
      ? { description: 'DNABERT-2, BertForMaskedLM (bert. prefix)', prefix: 'bert.' }
      : { description: 'DNABERT-S, MosaicBERT BertModel (no prefix)', prefix: '' };
  }
  const sample = all.slice(0, 3);
  throw new Error(`${source}: no DNABERT-S layout matched (its tensors: ${sample.length ? sample.join(', ') : 'none'}${all.length > 3 ? ', …' : ''}); expected one of: ${knownDnabertLayouts}`);
}
