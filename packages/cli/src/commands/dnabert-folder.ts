import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { dnabertWeightFiles } from '@virnucpro/dnabert';
import { UsageError } from '../errors.js';

/**
 * A DNABERT model is a folder (config.json, tokenizer.json, weights); say up front which part is
 * missing, as a usage error, rather than fail after reading part of it. `role` names the argument.
 */
export function requireDnabertFolder(path: string, role: string): void {
  if (!existsSync(path)) throw new UsageError(`${path}: model not found (${role} must be a DNABERT model folder)`);
  if (!statSync(path).isDirectory()) {
    throw new UsageError(`${path}: ${role} must be a DNABERT model folder (config.json, tokenizer.json and the weights), not a file`);
  }
  const missing = ['config.json', 'tokenizer.json'].filter((f) => !existsSync(join(path, f)));
  if (!dnabertWeightFiles.some((f) => existsSync(join(path, f)))) missing.push(`weights (one of ${dnabertWeightFiles.join(', ')})`);
  if (missing.length) throw new UsageError(`${path}: not a DNABERT model folder; missing ${missing.join(', ')}`);
}
