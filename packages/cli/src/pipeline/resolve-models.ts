import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { commandLine } from '../command-line.js';
import { DNABERT_DIR, DNABERT_REPO, ESM_REPOS, MLP_FILES, esmDirName, type EsmSize } from '../download/model-catalog.js';
import { findHfSnapshot, hfHubCache } from '../download/hf-cache.js';
import { readModelsIndex } from '../download/models-index.js';

export interface ModelPaths {
  esm: string;
  dnabert: string;
  mlp: string;
}

/**
 * Finds the ESM-2, DNABERT-S and MLP files for a run: explicit --esm/--dnabert/--mlp win; otherwise the
 * models folder's models.json (written by `models download` and the demo-model generator), else the
 * download layout (ESM-2 3B preferred, then the largest ESM-2 present; DNABERT-S/; <type>_model.pth), else a
 * complete snapshot in the Hugging Face cache (`hfCache`, see download/hf-cache.ts) for ESM-2 and DNABERT-S.
 */
export function resolveModelPaths(
  options: { modelsDir: string; modelType: 300 | 500; esm?: string; dnabert?: string; mlp?: string },
  hfCache: string = hfHubCache(process.env),
): ModelPaths {
  const dir = options.modelsDir;
  const index = existsSync(dir) ? readModelsIndex(dir) : undefined;
  // models.json may name a Hugging Face cache snapshot by its absolute path.
  const inDir = (rel: string | undefined) => (rel ? resolve(dir, rel) : undefined);
  const esmSizes = Object.keys(ESM_REPOS).reverse() as EsmSize[];
  const preferred: EsmSize[] = ['3B', ...esmSizes.filter((s) => s !== '3B')];
  const esm =
    options.esm ??
    inDir(index?.esm) ??
    preferred.map((s) => join(dir, esmDirName(s))).find((p) => existsSync(p)) ??
    preferred.map((s) => findHfSnapshot(hfCache, ESM_REPOS[s])).find((p) => p !== undefined);
  const dnabert =
    options.dnabert ??
    inDir(index?.dnabert) ??
    (existsSync(join(dir, DNABERT_DIR)) ? join(dir, DNABERT_DIR) : findHfSnapshot(hfCache, DNABERT_REPO, { files: ['tokenizer.json'] })) ??
    join(dir, DNABERT_DIR);
  const mlp = options.mlp ?? inDir(index?.mlp?.[String(options.modelType) as '300' | '500']) ?? join(dir, MLP_FILES[options.modelType]);

  const hint = `run \`${commandLine(['models', 'download', ...(dir ? ['--models-dir', dir] : [])])}\` or pass the path explicitly`;
  if (!esm || !existsSync(esm)) throw new UsageError(`no ESM-2 model: ${esm ?? `nothing like esm2_* in ${dir} nor in the Hugging Face cache ${hfCache}`} (--esm); ${hint}`);
  if (!existsSync(dnabert)) throw new UsageError(`no DNABERT-S model at ${dnabert} (--dnabert); ${hint}`);
  if (statSync(dnabert).isDirectory() && !existsSync(join(dnabert, 'tokenizer.json'))) {
    throw new UsageError(`${dnabert} has no tokenizer.json; DNABERT-S needs its tokenizer next to the weights`);
  }
  if (!existsSync(mlp)) throw new UsageError(`no VirNucPro MLP at ${mlp} (--mlp); ${hint}`);
  if (statSync(mlp).isDirectory()) throw new UsageError(`--mlp must be a file (.pth or .safetensors), ${mlp} is a folder`);
  return { esm, dnabert, mlp };
}

/** File that marks a folder of demo models with random weights (test-data/demo-models, tools/make-demo-models.mjs). */
export const DEMO_MODELS_MARKER = 'DEMO-RANDOM-WEIGHTS';

/** The folder holding the demo-models marker next to (or in) any of the models, if one does. */
export function demoModelsFolder(models: ModelPaths): string | undefined {
  for (const path of [models.esm, models.dnabert, models.mlp]) {
    for (const dir of [path, dirname(path)]) if (existsSync(join(dir, DEMO_MODELS_MARKER))) return dir;
  }
  return undefined;
}
