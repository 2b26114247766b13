import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LineCounter, parseDocument, isMap, isScalar, isSeq } from 'yaml';
import { UsageError } from '../errors.js';
import { coerceOption } from './coerce-option.js';
import { PREDICT_OPTIONS, type OptionSpec } from './predict-options.js';

export interface ConfigValue {
  value: string | number | boolean | string[];
  /** "file line N (key)" for messages. */
  where: string;
}

/**
 * Reads a predict config file (YAML mapping of option keys, the same names as the flags). Unknown keys,
 * wrong types and YAML syntax errors are UsageErrors naming the file and line. Relative paths are resolved
 * against the config file's folder, so a config can travel with its models.
 */
export function loadConfigFile(path: string): Map<string, ConfigValue> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read config file ${path}: ${(err as Error).message}`);
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(quoteStandardInput(text), { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const line = lineCounter.linePos(e.pos[0]).line;
    throw new UsageError(`${path} line ${line}: invalid YAML: ${e.message.split('\n')[0]}`);
  }
  const result = new Map<string, ConfigValue>();
  if (doc.contents === null) return result; // empty file (only comments)
  if (!isMap(doc.contents)) throw new UsageError(`${path}: expected a mapping of option: value lines`);
  const specs = new Map(PREDICT_OPTIONS.map((s) => [s.key, s] as const));
  for (const pair of doc.contents.items) {
    const keyNode = pair.key;
    const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
    const pos = isScalar(keyNode) && keyNode.range ? keyNode.range[0] : 0;
    const line = lineCounter.linePos(pos).line;
    const spec: OptionSpec | undefined = specs.get(key) ?? specs.get(key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase()).replace(/_/g, '-'));
    if (!spec || spec.cliOnly) {
      const known = PREDICT_OPTIONS.filter((s) => !s.cliOnly).map((s) => s.key).join(', ');
      throw new UsageError(`${path} line ${line}: unknown option '${key}' (known: ${known})`);
    }
    const valueNode = pair.value;
    const raw = isScalar(valueNode) ? valueNode.value : isSeq(valueNode) ? valueNode.toJSON() : valueNode == null ? null : (valueNode as { toJSON(): unknown }).toJSON();
    if (raw === null || raw === undefined) continue; // `key:` with no value = use the default
    const where = `${path} line ${line} (${spec.key})`;
    let value = coerceOption(spec, raw, where);
    if (spec.kind === 'path' && !(spec.key === 'input' && value === STANDARD_INPUT)) value = resolve(dirname(resolve(path)), value as string);
    result.set(spec.key, { value, where });
  }
  return result;
}

/** `input: -` names standard input, as `predict -` does; never a file called `-` beside the config. */
const STANDARD_INPUT = '-';

/**
 * `input: -` as a user writes it is not valid YAML (a bare `-` after a key starts a list): read it as the
 * string "-". Only that exact line changes (any indentation, an optional comment), so line numbers stay.
 */
function quoteStandardInput(text: string): string {
  return text.replace(/^(\s*input\s*:\s*)-(\s*(?:#.*)?)$/m, '$1"-"$2');
}
