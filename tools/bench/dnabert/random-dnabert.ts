// Random DNABERT weights of a given size (for speed measurements only) and random DNA inputs.
import { DnabertModel, type DnabertConfig, type DnabertWeights } from '@virnucpro/dnabert';

/** Deterministic xorshift32 in [-1, 1). */
export function seededUniform(seed: number): () => number {
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

export function randomDnabertModel(config: DnabertConfig, seed = 1): DnabertModel {
  return new DnabertModel(config, randomDnabertWeights(config, seed));
}

/** count random ACGT sequences with lengths drawn from `lengths` (VirNucPro chunks: 300 and 500 bp). */
export function randomDna(count: number, lengths: number[], seed = 7): string[] {
  const rand = seededUniform(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const len = lengths[i % lengths.length];
    const chars = new Array<string>(len);
    for (let j = 0; j < len; j++) chars[j] = 'ACGT'[Math.floor((rand() + 1) * 2) & 3];
    out.push(chars.join(''));
  }
  return out;
}
