import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { dnabertWeightFiles } from './load-dnabert.js';

/**
 * What keeps `path` from being a DNABERT model folder (config.json, tokenizer.json, weights), said up front
 * rather than after reading part of it; undefined when nothing does. `role` names the argument.
 */
export function dnabertFolderProblem(path: string, role: string): string | undefined {
  if (!existsSync(path)) return `${path}: model not found (${role} must be a DNABERT model folder)`;
  if (!statSync(path).isDirectory()) {
    return `${path}: ${role} must be a DNABERT model folder (config.json, tokenizer.json and the weights), not a file`;
  }
  const missing = ['config.json', 'tokenizer.json'].filter((f) => !existsSync(join(path, f)));
  if (!dnabertWeightFiles.some((f) => existsSync(join(path, f)))) missing.push(`weights (one of ${dnabertWeightFiles.join(', ')})`);
  return missing.length ? `${path}: not a DNABERT model folder; missing ${missing.join(', ')}` : undefined;
}
