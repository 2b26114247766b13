import * as tf from '@tensorflow/tfjs-core';
import { headDim, type Esm2Config } from './esm2-config.js';
import { esmInvFreq } from './rotary.js';
import type { Esm2Weights } from './esm2-weights.js';

/**
 * RANDOM weights of any ESM-2 shape, deterministic per seed: for speed measurements and property tests (batch
 * invariance), never for results. Uniform values from a fast seeded xorshift generator (tf.randomUniform's
 * seedrandom needs ~1 min for the 2.8 G values of 3B), uploaded tensor by tensor, so a 3B model (≈ 11 GiB fp32)
 * needs no checkpoint and never sits whole in host memory.
 */
export function randomEsm2Weights(config: Esm2Config, seed = 1): Esm2Weights {
  const d = config.embedDim;
  const f = config.ffnDim;
  let state = (seed * 2654435761) >>> 0 || 1;
  const uniform = (shape: number[], lo: number, hi: number) => {
    const values = new Float32Array(shape.reduce((a, b) => a * b, 1));
    const span = (hi - lo) / 2 ** 32;
    let x = state;
    for (let i = 0; i < values.length; i++) {
      x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
      values[i] = lo + (x >>> 0) * span;
    }
    state = x >>> 0 || 1;
    return tf.tensor(values, shape);
  };
  const w = (shape: number[], scale = 0.02) => uniform(shape, -scale, scale);
  const gain = () => uniform([d], 0.9, 1.1) as tf.Tensor1D;
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
