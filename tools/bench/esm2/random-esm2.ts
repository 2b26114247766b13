// Random ESM-2 weights of any size, created directly on the current backend (tf.randomUniform), so a
// 3B model (≈ 11 GiB fp32) needs no host-side generation or checkpoint. For speed measurements only.
import * as tf from '@tensorflow/tfjs-core';
import { esmInvFreq, headDim, type Esm2Config, type Esm2Weights } from '@virnucpro/esm2';

export function randomEsm2Weights(config: Esm2Config, seed = 1): Esm2Weights {
  const d = config.embedDim;
  const f = config.ffnDim;
  let s = seed;
  const w = (shape: number[], scale = 0.02) => tf.randomUniform(shape, -scale, scale, 'float32', s++);
  const gain = () => tf.randomUniform([d], 0.9, 1.1, 'float32', s++) as tf.Tensor1D;
  return {
    embedTokens: w([config.vocabSize, d], 0.5) as tf.Tensor2D,
    layers: Array.from({ length: config.numLayers }, () => ({
      attnNormGamma: gain(),
      attnNormBeta: w([d]) as tf.Tensor1D,
      qkvWT: w([d, 3 * d]) as tf.Tensor2D,
      qkvB: w([3 * d]) as tf.Tensor1D,
      outWT: w([d, d]) as tf.Tensor2D,
      outB: w([d]) as tf.Tensor1D,
      ffnNormGamma: gain(),
      ffnNormBeta: w([d]) as tf.Tensor1D,
      fc1WT: w([d, f]) as tf.Tensor2D,
      fc1B: w([f]) as tf.Tensor1D,
      fc2WT: w([f, d]) as tf.Tensor2D,
      fc2B: w([d]) as tf.Tensor1D,
      invFreq: esmInvFreq(headDim(config)),
    })),
    finalNormGamma: gain(),
    finalNormBeta: w([d]) as tf.Tensor1D,
  };
}

/** Parameters of an ESM-2 encoder (no LM head), as counted by transformers' EsmModel without pooler. */
export function esm2Parameters(c: Esm2Config): number {
  const d = c.embedDim;
  const perLayer = 4 * (d * d + d) + 2 * 2 * d + (d * c.ffnDim + c.ffnDim) + (c.ffnDim * d + d);
  return c.vocabSize * d + c.numLayers * perLayer + 2 * d;
}

/** Random protein strings whose lengths follow `lengths` (cycled); 20 standard residues. */
export function randomProteins(count: number, lengths: number[], seed = 7): string[] {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x;
  };
  const residues = 'ACDEFGHIKLMNPQRSTVWY';
  return Array.from({ length: count }, (_, i) => {
    const n = lengths[i % lengths.length];
    let s = '';
    for (let j = 0; j < n; j++) s += residues[next() % 20];
    return s;
  });
}
