import * as tf from '@tensorflow/tfjs-core';
import { embedding, geglu, inModelBlock, layerNorm, linear, packedAttention, packedLayout, readFloats, segmentMean, type FloatAllocator, type PackedLayout } from '@virnucpro/ops';
import { alibiSlopes } from './alibi-slopes.js';
import type { DnabertConfig } from './dnabert-config.js';
import type { DnabertWeights } from './dnabert-weights.js';

// MosaicBERT forward pass (bert_layers.py BertModel, as in DNABERT-2 / DNABERT-S) over a packed
// stream of sequences: every per-token op runs on the real tokens only, attention stays inside
// each sequence (ALiBi bias −slope·|i−j|). This is what bert_layers.py itself does when it unpads.
// Every step is an op of @virnucpro/ops (one named kernel each).

interface LayerTensors {
  wqkvT: tf.Tensor2D;
  bqkv: tf.Tensor1D;
  attnOutT: tf.Tensor2D;
  attnOutBias: tf.Tensor1D;
  attnLnGamma: tf.Tensor1D;
  attnLnBeta: tf.Tensor1D;
  gatedT: tf.Tensor2D;
  mlpOutT: tf.Tensor2D;
  mlpOutBias: tf.Tensor1D;
  mlpLnGamma: tf.Tensor1D;
  mlpLnBeta: tf.Tensor1D;
}

export class DnabertModel {
  readonly slopes: Float32Array;
  /** [V, d]: word embeddings with the token-type-0 row already added (every token has type 0). */
  private readonly embeddings: tf.Tensor2D;
  private readonly embLnGamma: tf.Tensor1D;
  private readonly embLnBeta: tf.Tensor1D;
  private readonly layers: LayerTensors[];
  private disposed = false;

  constructor(
    readonly config: DnabertConfig,
    weights: DnabertWeights,
  ) {
    const { vocabSize: V, hiddenSize: d, intermediateSize: I } = config;
    this.slopes = alibiSlopes(config.numHeads);
    // Weights are transposed once here so every Linear is one [N,in]·[in,out] matmul.
    const transposed = (w: Float32Array, out: number, inp: number) =>
      tf.tidy(() => tf.transpose(tf.tensor2d(w, [out, inp])) as tf.Tensor2D);
    const vec = (v: Float32Array) => tf.tensor1d(v);
    // word + type row once here: the same fp32 sums the per-batch add gave, one gather per batch.
    this.embeddings = tf.tidy(() => tf.add(tf.tensor2d(weights.wordEmbeddings, [V, d]), tf.tensor1d(weights.tokenTypeEmbeddings.subarray(0, d))));
    this.embLnGamma = vec(weights.embLnGamma);
    this.embLnBeta = vec(weights.embLnBeta);
    this.layers = weights.layers.map((l) => ({
      wqkvT: transposed(l.wqkv, 3 * d, d),
      bqkv: vec(l.bqkv),
      attnOutT: transposed(l.attnOut, d, d),
      attnOutBias: vec(l.attnOutBias),
      attnLnGamma: vec(l.attnLnGamma),
      attnLnBeta: vec(l.attnLnBeta),
      gatedT: transposed(l.gated, 2 * I, d),
      mlpOutT: transposed(l.mlpOut, d, I),
      mlpOutBias: vec(l.mlpOutBias),
      mlpLnGamma: vec(l.mlpLnGamma),
      mlpLnBeta: vec(l.mlpLnBeta),
    }));
  }

  /** Last hidden state [N, d] of sequences packed back to back (ids include [CLS]/[SEP]). */
  forwardPacked(ids: Int32Array, layout: PackedLayout): tf.Tensor2D {
    this.assertLive();
    const { hiddenSize: d, numHeads, layerNormEps: eps } = this.config;
    if (ids.length !== layout.totalTokens) throw new Error(`forwardPacked: ${ids.length} ids for a layout of ${layout.totalTokens} tokens`);
    for (const id of ids) {
      if (!(id >= 0 && id < this.config.vocabSize)) throw new Error(`token id ${id} is outside the vocabulary (0..${this.config.vocabSize - 1})`);
    }
    const scale = 1 / Math.sqrt(d / numHeads);
    // Embeddings: word + token-type 0 (one table), LayerNorm; no position embeddings (ALiBi instead).
    let x = tf.tidy(() => layerNorm(embedding(tf.tensor1d(ids, 'int32'), this.embeddings, 1), this.embLnGamma, this.embLnBeta, eps));
    // One tidy per layer: a layer's intermediates (the GeGLU input alone is [N, 2I]) are freed before the next
    // starts; in one tidy around the stack all 12 layers' stayed alive to the end (a 4,096-token batch: 3.6 GB RSS).
    for (const [i, l] of this.layers.entries()) {
      const next = tf.tidy(() => inModelBlock(i, this.layers.length, () => {
        // `segments`: the same result; a backend that rounds the weights may correct that rounding per sequence.
        const segments = layout;
        const qkv = linear(x, l.wqkvT, l.bqkv, { segments });
        const context = packedAttention(qkv, layout, { numHeads, scale, alibiSlopes: this.slopes });
        const y = layerNorm(linear(context, l.attnOutT, l.attnOutBias, { residual: x, segments }), l.attnLnGamma, l.attnLnBeta, eps);
        // GeGLU: GELU(first I columns) · (last I columns), then the output projection.
        const mlp = linear(geglu(linear(y, l.gatedT, undefined, { segments })), l.mlpOutT, l.mlpOutBias, { residual: y, segments });
        return layerNorm(mlp, l.mlpLnGamma, l.mlpLnBeta, eps);
      }));
      x.dispose();
      x = next;
    }
    return x;
  }

  /** Last hidden state of each tokenized sequence, [len·d] row-major, run as one packed batch. */
  async hiddenStates(tokenized: Int32Array[]): Promise<Float32Array[]> {
    const { ids, layout } = pack(tokenized);
    try {
      const hidden = this.forwardPacked(ids, layout);
      const all = (await hidden.data()) as Float32Array;
      hidden.dispose();
      const d = this.config.hiddenSize;
      return layout.lengths.map((n, s) => all.slice(layout.offsets[s] * d, (layout.offsets[s] + n) * d));
    } finally {
      layout.dispose();
    }
  }

  /**
   * VirNucPro's nucleotide feature: mean of the last hidden state over ALL tokens incl. [CLS]/[SEP]. With `allocate`,
   * read into an array from it where the backend can (ops readFloats).
   */
  async meanEmbeddings(tokenized: Int32Array[], allocate?: FloatAllocator): Promise<Float32Array[]> {
    const { ids, layout } = pack(tokenized);
    try {
      const means = tf.tidy(() => segmentMean(this.forwardPacked(ids, layout), layout, 0, 0));
      const all = await readFloats(means, allocate);
      means.dispose();
      const d = this.config.hiddenSize;
      // Views, not copies: a batch's values are read once and outlive the tensor on every backend, and a copy each
      // (~2,000 a batch of 150-bp windows) cost `embed dnabert`'s main thread ~9 % of its time, plus the GC.
      return layout.lengths.map((_, s) => all.subarray(s * d, (s + 1) * d));
    } finally {
      layout.dispose();
    }
  }

  /**
   * Padded-batch interface of `BertModel(input_ids, attention_mask)[0]`: [B, L, d] flattened, with
   * zero rows where the mask is 0 (as bert_layers.py re-pads). Runs the unmasked tokens packed.
   */
  async hiddenStatesPadded(inputIds: Int32Array, attentionMask: Int32Array, batch: number, length: number): Promise<Float32Array> {
    if (inputIds.length !== batch * length || attentionMask.length !== batch * length) {
      throw new Error(`hiddenStatesPadded: expected ${batch}×${length} ids and mask entries`);
    }
    const rows: Int32Array[] = [];
    for (let b = 0; b < batch; b++) {
      const kept: number[] = [];
      for (let t = 0; t < length; t++) if (attentionMask[b * length + t]) kept.push(inputIds[b * length + t]);
      rows.push(Int32Array.from(kept));
    }
    const hidden = await this.hiddenStates(rows);
    const d = this.config.hiddenSize;
    const out = new Float32Array(batch * length * d);
    for (let b = 0; b < batch; b++) {
      let r = 0;
      for (let t = 0; t < length; t++) {
        if (!attentionMask[b * length + t]) continue;
        out.set(hidden[b].subarray(r * d, (r + 1) * d), (b * length + t) * d);
        r++;
      }
    }
    return out;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const all: tf.Tensor[] = [this.embeddings, this.embLnGamma, this.embLnBeta];
    for (const l of this.layers) all.push(...Object.values(l));
    tf.dispose(all);
  }

  private assertLive(): void {
    if (this.disposed) throw new Error('DnabertModel used after dispose()');
  }
}

/** Concatenates tokenized sequences into one packed id stream and its layout. */
function pack(tokenized: Int32Array[]): { ids: Int32Array; layout: PackedLayout } {
  if (tokenized.length === 0) throw new Error('DnabertModel: empty batch');
  const lengths = tokenized.map((t) => t.length);
  const ids = new Int32Array(lengths.reduce((a, b) => a + b, 0));
  let at = 0;
  for (const t of tokenized) {
    ids.set(t, at);
    at += t.length;
  }
  return { ids, layout: packedLayout(lengths) };
}
