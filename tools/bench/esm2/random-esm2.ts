// Random ESM-2 inputs and sizes for speed measurements; the random weights are @virnucpro/esm2's randomEsm2Weights.
import type { Esm2Config } from '@virnucpro/esm2';

export { randomEsm2Weights } from '@virnucpro/esm2';

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
