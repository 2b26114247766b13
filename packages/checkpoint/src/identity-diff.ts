// What differs between two model identities (the checkpoint's and this run's), one readable line each,
// for the resume refusal — instead of printing both identities as JSON blobs.
import { canonicalJson } from './fingerprint.js';

type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `[[name, size], …]` (a model folder's file list, as the CLI records it). */
const isFileList = (v: Json): v is [string, number][] =>
  Array.isArray(v) && v.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && typeof e[1] === 'number');

const show = (v: Json): string => (typeof v === 'string' ? v : v === undefined ? '(none)' : canonicalJson(v));

/**
 * One line per difference, as `path: this run's value vs the checkpoint's value`. Objects are compared key
 * by key (key order does not matter); a file list `[[name, bytes], …]` file by file.
 */
export function describeIdentityDifferences(checkpoint: Json, current: Json, path = ''): string[] {
  if (canonicalJson(checkpoint) === canonicalJson(current)) return [];
  const at = path ? `${path}: ` : '';
  if (isObject(checkpoint) && isObject(current)) {
    const keys = [...new Set([...Object.keys(current), ...Object.keys(checkpoint)])];
    return keys.flatMap((k) => describeIdentityDifferences(checkpoint[k], current[k], path ? `${path}.${k}` : k));
  }
  if (isFileList(checkpoint) && isFileList(current)) {
    const before = new Map(checkpoint);
    const now = new Map(current);
    const lines: string[] = [];
    for (const [name, size] of now) {
      const old = before.get(name);
      if (old === undefined) lines.push(`${at}file ${name} (${size} bytes) is not in the checkpoint's model`);
      else if (old !== size) lines.push(`${at}file ${name} is ${size} bytes vs the checkpoint's ${old} bytes`);
    }
    for (const [name, size] of before) if (!now.has(name)) lines.push(`${at}file ${name} (${size} bytes) of the checkpoint's model is missing`);
    return lines;
  }
  return [`${at}${show(current)} vs the checkpoint's ${show(checkpoint)}`];
}
