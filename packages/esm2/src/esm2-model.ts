import * as tf from '@tensorflow/tfjs-core';
import { embedding, inModelBlock, layerNorm, linear, packedAttention, packedLayout, segmentMean, type PackedLayout } from '@virnucpro/ops';
import { maskId, padId } from './alphabet.js';
import type { Esm2Config } from './esm2-config.js';
import { disposeEsm2Weights, type Esm2LayerWeights, type Esm2Weights } from './esm2-weights.js';
import { rotaryTables } from './rotary.js';

/** fair-esm's token-dropout constant: mask_ratio_train = 0.15 · 0.8. */
const maskRatioTrain = 0.15 * 0.8;

/**
 * ESM-2 forward pass over packed batches (any size from the config): token-dropout rescale,
 * pre-LN layers with rotary q/k (half-split, positions restart at 0 per sequence, stored
 * inv_freq), erf GELU, emb_layer_norm_after. Weights stay resident on the backend. Every step is an
 * op of @virnucpro/ops (one named kernel each), so a backend with its own kernels runs it unchanged.
 */
export class Esm2Model {
  private tables = new Map<string, { positions: number; cos: tf.Tensor2D; sinSigned: tf.Tensor2D }>();
  private invFreqKeys = new WeakMap<Float32Array, string>();

  constructor(readonly config: Esm2Config, readonly weights: Esm2Weights) {}

  get dim(): number {
    return this.config.embedDim;
  }

  /**
   * Last hidden state (after emb_layer_norm_after) of every token of the packed stream, [N, d].
   * `tokens` are complete token lists (with BOS/EOS); the caller owns the returned tensor and the layout.
   */
  forwardPacked(tokens: readonly Int32Array[]): { hidden: tf.Tensor2D; layout: PackedLayout } {
    const layout = packedLayout(tokens.map((t) => t.length));
    const ids = new Int32Array(layout.totalTokens);
    tokens.forEach((t, s) => ids.set(t, layout.offsets[s]));
    const scale = this.tokenDropoutScales(tokens, layout);
    let x = tf.tidy(() =>
      embedding(tf.tensor1d(ids, 'int32'), this.weights.embedTokens, typeof scale === 'number' ? scale : tf.tensor1d(scale)));
    const blocks = this.weights.layers.length;
    for (const [i, layer] of this.weights.layers.entries()) {
      const next = tf.tidy(() => inModelBlock(i, blocks, () => this.layerForward(x, layer, layout)));
      x.dispose();
      x = next;
    }
    const hidden = layerNorm(x, this.weights.finalNormGamma, this.weights.finalNormBeta, this.config.layerNormEps);
    x.dispose();
    return { hidden, layout };
  }

  /** Mean of the last hidden state over residues (BOS and EOS excluded) for each token list. */
  async meanEmbeddings(tokens: readonly Int32Array[]): Promise<Float32Array[]> {
    if (tokens.length === 0) return [];
    tokens.forEach((t, i) => {
      if (t.length < 3) throw new Error(`protein ${i} is empty: ESM-2 mean embeddings need at least one residue`);
    });
    const { hidden, layout } = this.forwardPacked(tokens);
    const means = segmentMean(hidden, layout, 1, 1);
    hidden.dispose();
    try {
      const flat = (await means.data()) as Float32Array;
      const d = this.dim;
      // Views, not copies, as DNABERT-S's meanEmbeddings: a read's values outlive the tensor on every backend.
      return tokens.map((_, s) => flat.subarray(s * d, (s + 1) * d));
    } finally {
      means.dispose();
      layout.dispose();
    }
  }

  dispose(): void {
    for (const t of this.tables.values()) tf.dispose([t.cos, t.sinSigned]);
    this.tables.clear();
    disposeEsm2Weights(this.weights);
  }

  /** One pre-LN layer: x + attn(LN(x)), then h + fc2(gelu(fc1(LN(h)))). */
  private layerForward(x: tf.Tensor2D, w: Esm2LayerWeights, layout: PackedLayout): tf.Tensor2D {
    const { numHeads: H, layerNormEps: eps } = this.config;
    const rotary = this.table(w.invFreq, layout.maxLength);
    // Each norm's output feeds one linear layer only (a backend may keep it in that layer's input precision alone).
    const a = layerNorm(x, w.attnNormGamma, w.attnNormBeta, eps, { linearInputOnly: true });
    // q already carries head_dim^-0.5 (folded into the weights at load), hence scale 1; q and k are rotated
    // inside the attention op (a backend may do it while loading them instead of in a pass of its own).
    // `segments`: the same result; a backend that rounds the weights may correct that rounding per sequence.
    const segments = layout;
    const qkv = linear(a, w.qkvWT, w.qkvB, { segments });
    const context = packedAttention(qkv, layout, { numHeads: H, scale: 1, rotary });
    const h = linear(context, w.outWT, w.outB, { residual: x, segments });
    const f = layerNorm(h, w.ffnNormGamma, w.ffnNormBeta, eps, { linearInputOnly: true });
    return linear(linear(f, w.fc1WT, w.fc1B, { activation: 'gelu', segments }), w.fc2WT, w.fc2B, { residual: h, segments });
  }

  /**
   * Per-row embedding scale: (1 − 0.12)/(1 − masked/length) per sequence, 0 on `<mask>` rows and
   * `<pad>` rows (fair-esm esm2.py). A single number when every row gets the same factor.
   */
  private tokenDropoutScales(tokens: readonly Int32Array[], layout: PackedLayout): number | Float32Array {
    const special = tokens.some((t) => t.some((id) => id === maskId || id === padId));
    const base = this.config.tokenDropout ? 1 - maskRatioTrain : 1;
    if (!special) return base;
    const scales = new Float32Array(layout.totalTokens);
    tokens.forEach((t, s) => {
      let masked = 0;
      let nonPad = 0;
      for (const id of t) {
        if (id === maskId) masked++;
        if (id !== padId) nonPad++;
      }
      const factor = this.config.tokenDropout ? base / (1 - masked / nonPad) : 1;
      t.forEach((id, j) => {
        scales[layout.offsets[s] + j] = (this.config.tokenDropout && id === maskId) || id === padId ? 0 : factor;
      });
    });
    return scales;
  }

  /** cos / signed-sin tables for positions 0..n−1, grown in powers of two and kept on the backend. */
  private table(invFreq: Float32Array, needed: number) {
    let key = this.invFreqKeys.get(invFreq);
    if (key === undefined) this.invFreqKeys.set(invFreq, (key = Array.from(invFreq).join(',')));
    let t = this.tables.get(key);
    if (!t || t.positions < needed) {
      if (t) tf.dispose([t.cos, t.sinSigned]);
      const positions = Math.max(256, 2 ** Math.ceil(Math.log2(needed)));
      const { cos, sin } = rotaryTables(invFreq, positions);
      const hd = 2 * invFreq.length;
      const half = invFreq.length;
      for (let p = 0; p < positions; p++) for (let i = 0; i < half; i++) sin[p * hd + i] = -sin[p * hd + i];
      t = { positions, cos: tf.keep(tf.tensor2d(cos, [positions, hd])), sinSigned: tf.keep(tf.tensor2d(sin, [positions, hd])) };
      this.tables.set(key, t);
    }
    return t;
  }
}
