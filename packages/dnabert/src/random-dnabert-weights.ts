import type { DnabertConfig } from './dnabert-config.js';
import type { DnabertWeights } from './dnabert-weights.js';

/** Deterministic xorshift32 in [-1, 1). */
function seededUniform(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 31 - 1;
  };
}

function filled(n: number, rand: () => number, scale: number, offset = 0): Float32Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = offset + scale * rand();
  return a;
}

/**
 * RANDOM weights of any DNABERT shape, deterministic per seed: for speed measurements and property tests
 * (batch invariance), never for results.
 */
export function randomDnabertWeights(config: DnabertConfig, seed = 1): DnabertWeights {
  const rand = seededUniform(seed);
  const { vocabSize: V, hiddenSize: d, intermediateSize: I } = config;
  const w = (n: number) => filled(n, rand, 0.04);
  const gain = () => filled(d, rand, 0.1, 1);
  return {
    wordEmbeddings: w(V * d),
    tokenTypeEmbeddings: w(2 * d),
    embLnGamma: gain(),
    embLnBeta: w(d),
    layers: Array.from({ length: config.numLayers }, () => ({
      wqkv: w(3 * d * d), bqkv: w(3 * d),
      attnOut: w(d * d), attnOutBias: w(d), attnLnGamma: gain(), attnLnBeta: w(d),
      gated: w(2 * I * d), mlpOut: w(d * I), mlpOutBias: w(d), mlpLnGamma: gain(), mlpLnBeta: w(d),
    })),
  };
}
