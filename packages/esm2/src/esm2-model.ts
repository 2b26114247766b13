import * as tf from '@tensorflow/tfjs-core';
import { gelu, layerNorm, linear, packedAttention, packedLayout, segmentMean, type PackedLayout } from '@virnucpro/ops';
import { maskId, padId } from './alphabet.js';
import { headDim, type Esm2Config } from './esm2-config.js';
import { disposeEsm2Weights, type Esm2LayerWeights, type Esm2Weights } from './esm2-weights.js';
import { rotaryTables } from './rotary.js';

/** fair-esm's token-dropout constant: mask_ratio_train = 0.15 · 0.8. */
const maskRatioTrain = 0.15 * 0.8;

interface RotaryRows {
  cos: tf.Tensor3D; // [N, 1, hd]
  sinSigned: tf.Tensor3D; // [N, 1, hd]: (−sin, +sin) halves, so rotate_half becomes a swap
}

/**
 * ESM-2 forward pass over packed batches (any size from the config): token-dropout rescale,
 * pre-LN layers with rotary q/k (half-split, positions restart at 0 per sequence, stored
 * inv_freq), erf GELU, emb_layer_norm_after. Weights stay resident on the backend.
 */
export class Esm2Model {
  private tables = new Map<string, { positions: number; cos: tf.Tensor2D; sinSigned: tf.Tensor2D }>();

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
    const rowScale = this.tokenDropoutScales(tokens, layout);
    const rotary = this.rotaryRows(layout);
    let x = tf.tidy(() => {
      const embedded = tf.gather(this.weights.embedTokens, tf.tensor1d(ids, 'int32')) as tf.Tensor2D;
      return typeof rowScale === 'number'
        ? (rowScale === 1 ? embedded : tf.mul(embedded, rowScale))
        : tf.mul(embedded, tf.tensor2d(rowScale, [layout.totalTokens, 1]));
    }) as tf.Tensor2D;
    for (const layer of this.weights.layers) {
      const next = tf.tidy(() => this.layerForward(x, layer, layout, this.rotaryFor(layer, rotary, layout)));
      x.dispose();
      x = next;
    }
    const hidden = tf.tidy(() => layerNorm(x, this.weights.finalNormGamma, this.weights.finalNormBeta, this.config.layerNormEps));
    x.dispose();
    disposeRotary(rotary);
    return { hidden, layout };
  }

  /** Mean of the last hidden state over residues (BOS and EOS excluded) for each token list. */
  async meanEmbeddings(tokens: readonly Int32Array[]): Promise<Float32Array[]> {
    if (tokens.length === 0) return [];
    tokens.forEach((t, i) => {
      if (t.length < 3) throw new Error(`protein ${i} is empty: ESM-2 mean embeddings need at least one residue`);
    });
    const { hidden, layout } = this.forwardPacked(tokens);
    const means = tf.tidy(() => segmentMean(hidden, layout, 1, 1));
    hidden.dispose();
    try {
      const flat = (await means.data()) as Float32Array;
      const d = this.dim;
      return tokens.map((_, s) => flat.slice(s * d, (s + 1) * d));
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

  private layerForward(x: tf.Tensor2D, w: Esm2LayerWeights, layout: PackedLayout, rotary: RotaryRows): tf.Tensor2D {
    const { embedDim: d, numHeads: H, layerNormEps: eps } = this.config;
    const N = layout.totalTokens;
    const hd = headDim(this.config);
    const a = layerNorm(x, w.attnNormGamma, w.attnNormBeta, eps);
    const qkv = linear(a, w.qkvWT, w.qkvB); // q already carries head_dim^-0.5
    const [qk, v] = tf.split(qkv, [2 * d, d], 1) as [tf.Tensor2D, tf.Tensor2D];
    // Rotary on q and k together: x·cos + rotate_half(x)·sin with rotate_half = (−x2, x1).
    const heads = tf.reshape(qk, [N, 2 * H, hd]);
    const [x1, x2] = tf.split(heads, 2, 2);
    const rotated = tf.add(tf.mul(heads, rotary.cos), tf.mul(tf.concat([x2, x1], 2), rotary.sinSigned));
    const [q, k] = tf.split(tf.reshape(rotated, [N, 2 * d]), 2, 1) as [tf.Tensor2D, tf.Tensor2D];
    const context = packedAttention(q, k, v, layout, { numHeads: H, scale: 1 });
    const afterAttention = tf.add(x, linear(context, w.outWT, w.outB)) as tf.Tensor2D;
    const f = layerNorm(afterAttention, w.ffnNormGamma, w.ffnNormBeta, eps);
    const ffn = linear(gelu(linear(f, w.fc1WT, w.fc1B)), w.fc2WT, w.fc2B);
    return tf.add(afterAttention, ffn) as tf.Tensor2D;
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

  /** Rotary rows for the layout, one set per distinct inv_freq (all layers share one in practice). */
  private rotaryRows(layout: PackedLayout): Map<string, RotaryRows> {
    const rows = new Map<string, RotaryRows>();
    for (const layer of this.weights.layers) {
      const key = invFreqKey(layer.invFreq);
      if (rows.has(key)) continue;
      const table = this.table(layer.invFreq, key, layout.maxLength);
      const hd = table.cos.shape[1];
      rows.set(key, tf.tidy(() => ({
        cos: tf.reshape(tf.gather(table.cos, layout.positionsTensor), [layout.totalTokens, 1, hd]) as tf.Tensor3D,
        sinSigned: tf.reshape(tf.gather(table.sinSigned, layout.positionsTensor), [layout.totalTokens, 1, hd]) as tf.Tensor3D,
      })));
    }
    return rows;
  }

  private rotaryFor(layer: Esm2LayerWeights, rows: Map<string, RotaryRows>, _layout: PackedLayout): RotaryRows {
    return rows.get(invFreqKey(layer.invFreq))!;
  }

  /** cos / signed-sin tables for positions 0..n−1, grown in powers of two and kept on the backend. */
  private table(invFreq: Float32Array, key: string, needed: number) {
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

function invFreqKey(invFreq: Float32Array): string {
  return Array.from(invFreq).join(',');
}

function disposeRotary(rows: Map<string, RotaryRows>): void {
  for (const r of rows.values()) tf.dispose([r.cos, r.sinSigned]);
}
