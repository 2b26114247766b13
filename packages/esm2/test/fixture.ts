import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readSafetensors, type TensorData } from '@virnucpro/weights';

export const fixtureDir = fileURLToPath(new URL('../../../test-data/esm2/', import.meta.url));

export interface EsmFixture {
  sequences: string[];
  tokenIds: number[][];
  expected: Map<string, TensorData>;
}

export async function loadFixture(): Promise<EsmFixture> {
  const inputs = JSON.parse(readFileSync(`${fixtureDir}inputs.json`, 'utf8')) as { sequences: string[]; token_ids: number[][] };
  const { tensors } = await readSafetensors(`${fixtureDir}expected.safetensors`);
  return { sequences: inputs.sequences, tokenIds: inputs.token_ids, expected: tensors };
}

export function compare(got: ArrayLike<number>, want: ArrayLike<number>): { maxAbs: number; cosine: number } {
  if (got.length !== want.length) throw new Error(`length ${got.length} != ${want.length}`);
  let maxAbs = 0, dot = 0, ng = 0, nw = 0;
  for (let i = 0; i < got.length; i++) {
    const d = Math.abs(got[i] - want[i]);
    if (!(d <= maxAbs)) maxAbs = Number.isNaN(d) ? Infinity : d;
    dot += got[i] * want[i];
    ng += got[i] ** 2;
    nw += want[i] ** 2;
  }
  return { maxAbs, cosine: dot / Math.sqrt(ng * nw) };
}
