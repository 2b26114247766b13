import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '@virnucpro/atomic-file';

/**
 * `<models-dir>/models.json`: which entry of the folder plays which role. Written by `models download` and
 * by tools/make-demo-models.mjs; read by --model-type resolution. Paths are relative to the folder.
 */
export interface ModelsIndex {
  esm?: string;
  dnabert?: string;
  mlp?: { '300'?: string; '500'?: string };
  note?: string;
}

export function readModelsIndex(dir: string): ModelsIndex | undefined {
  const path = join(dir, 'models.json');
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as ModelsIndex;
  } catch (err) {
    throw new Error(`${path}: not valid JSON (${(err as Error).message})`);
  }
}

export function updateModelsIndex(dir: string, update: ModelsIndex): void {
  const current = readModelsIndex(dir) ?? {};
  const next: ModelsIndex = { ...current, ...update, mlp: { ...current.mlp, ...update.mlp } };
  writeFileAtomicSync(join(dir, 'models.json'), JSON.stringify(next, null, 2) + '\n');
}
