// A random DNABERT model of a given size (for speed measurements only; weights from @virnucpro/dnabert) and random DNA inputs.
import { DnabertModel, randomDnabertWeights, type DnabertConfig } from '@virnucpro/dnabert';

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
