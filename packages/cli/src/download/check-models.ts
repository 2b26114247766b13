// `virnucpro models check DIR`: is a models folder copied by hand (an offline cluster node) whole? Every file the
// download recorded has its size and sha256, the built-in known files theirs, files linked into a Hugging Face
// cache blob the sha256 that names the blob, and every role of models.json a complete model.
import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { sha256OfFile } from './download-file.js';
import { hasWeights } from './hf-cache.js';
import { LocalManifest } from './local-manifest.js';
import { KNOWN_FILES } from './model-catalog.js';
import { readModelsIndex } from './models-index.js';
import { DEMO_MODELS_MARKER } from '../pipeline/resolve-models.js';

export interface ModelsCheck {
  /** Files whose size (and sha256, where one is known) was compared. */
  checked: number;
  /** Of those, the ones whose sha256 was computed and matched. */
  hashed: number;
  /** One line per problem, each naming its file. */
  problems: string[];
}

/** The line a passed check prints: what was compared, or that nothing could be (a folder not made by a download). */
export function passedCheckLine(dir: string, check: ModelsCheck): string {
  const demo = existsSync(join(dir, DEMO_MODELS_MARKER)) ? '; demo models with random weights: their calls mean nothing' : '';
  if (check.checked === 0) return `${dir}: every model complete, but no file has a recorded size or hash to compare (no manifest.json; \`virnucpro models download\` writes one)${demo}`;
  return `${dir}: ${check.checked} files checked (${check.hashed} by sha256), every model complete${demo}`;
}

export async function checkModelsFolder(dir: string, knownFiles = KNOWN_FILES): Promise<ModelsCheck> {
  const result: ModelsCheck = { checked: 0, hashed: 0, problems: [] };
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    result.problems.push(`${dir}: not a folder`);
    return result;
  }
  const compare = async (path: string, expected: { size?: number; sha256?: string }, from: string) => {
    if (!existsSync(path)) return void result.problems.push(`${path}: missing (listed in ${from})`);
    result.checked++;
    const size = statSync(path).size;
    if (expected.size !== undefined && size !== expected.size) {
      return void result.problems.push(`${path}: ${size} bytes, but ${from} says ${expected.size} (copy incomplete?)`);
    }
    if (!expected.sha256) return;
    const sha = await sha256OfFile(path);
    if (sha !== expected.sha256) return void result.problems.push(`${path}: sha256 ${sha}, but ${from} says ${expected.sha256} (damaged copy?)`);
    result.hashed++;
  };

  const seen = new Set<string>();
  const manifest = new LocalManifest(dir);
  for (const [rel, entry] of Object.entries(manifest.files)) {
    seen.add(rel);
    await compare(join(dir, rel), entry, 'manifest.json');
  }
  for (const [rel, entry] of Object.entries(knownFiles)) {
    if (!seen.has(rel) && existsSync(join(dir, rel))) await compare(join(dir, rel), entry, 'the published sizes and hashes');
  }

  const index = readModelsIndex(dir);
  const roles: [string, string | undefined][] = [
    ['esm', index?.esm],
    ['dnabert', index?.dnabert],
    ['mlp 300', index?.mlp?.['300']],
    ['mlp 500', index?.mlp?.['500']],
  ];
  if (!index) result.problems.push(`${join(dir, 'models.json')}: missing; \`virnucpro models download\` writes it`);
  for (const [role, rel] of roles) {
    if (!index) break;
    if (!rel) {
      result.problems.push(`${join(dir, 'models.json')}: names no ${role} model`);
      continue;
    }
    const path = resolve(dir, rel);
    if (!existsSync(path)) {
      result.problems.push(`${path}: missing (the ${role} model of models.json)`);
      continue;
    }
    if (role.startsWith('mlp')) continue;
    if (!existsSync(join(path, 'config.json'))) result.problems.push(`${path}: no config.json (the ${role} model)`);
    if (!hasWeights(path)) result.problems.push(`${path}: no complete weights (model.safetensors, pytorch_model.bin, or every shard of an index)`);
    if (role === 'dnabert' && !existsSync(join(path, 'tokenizer.json'))) result.problems.push(`${path}: no tokenizer.json (DNABERT-S needs it)`);
    // A Hugging Face cache snapshot links each file to a blob named by its sha256 (large files) or git hash.
    if (relative(dir, path).startsWith('..') || !seen.has(relative(dir, join(path, 'config.json')))) {
      for (const name of readdirSync(path)) {
        const file = join(path, name);
        if (!lstatSync(file).isSymbolicLink() || !existsSync(file)) continue;
        const blob = basename(realpathSync(file));
        if (/^[0-9a-f]{64}$/.test(blob)) await compare(file, { sha256: blob }, 'its Hugging Face cache blob name');
      }
    }
  }
  return result;
}
