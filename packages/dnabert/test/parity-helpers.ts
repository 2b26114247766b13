import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';

export const dataDir = fileURLToPath(new URL('../../../test-data/dnabert/', import.meta.url));
export const tinyDir = `${dataDir}tiny`;
export const tinyInputs: { sequences: string[]; token_ids: number[][] } = JSON.parse(readFileSync(`${tinyDir}/inputs.json`, 'utf8'));

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} != ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}
