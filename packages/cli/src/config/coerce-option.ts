import { UsageError } from '../errors.js';
import type { OptionSpec } from './predict-options.js';

/**
 * Checks one option value and converts it to its type. `where` names its origin for the error message,
 * e.g. "--token-budget" or "config.yaml line 4 (token-budget)".
 */
export function coerceOption(spec: OptionSpec, raw: unknown, where: string): string | number | boolean | string[] {
  const fail = (expected: string): never => {
    // NaN: yargs' number type turned a word into it, and the word itself is lost (JSON would print null).
    const given = Number.isNaN(raw) ? 'a value that is not a number' : JSON.stringify(raw);
    throw new UsageError(`${where}: expected ${expected}, got ${given}`);
  };
  switch (spec.kind) {
    case 'string':
    case 'path':
      if (typeof raw === 'number') return String(raw);
      if (typeof raw !== 'string' || raw.trim() === '') return fail(spec.kind === 'path' ? 'a path' : 'a string');
      return raw;
    case 'boolean':
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      return fail('true or false');
    case 'integer': {
      const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
      if (typeof n !== 'number' || !Number.isInteger(n)) return fail('a whole number');
      if (spec.min !== undefined && n < spec.min) return fail(`a whole number ≥ ${spec.min}`);
      return n;
    }
    case 'number': {
      const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
      const range = `a number${spec.min !== undefined ? ` ≥ ${spec.min}` : ''}${spec.max !== undefined ? ` and ≤ ${spec.max}` : ''}`;
      if (typeof n !== 'number' || !Number.isFinite(n)) return fail(range);
      if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) return fail(range);
      return n;
    }
    case 'choice': {
      const choices = spec.choices ?? [];
      const match = choices.find((c) => String(c) === String(raw));
      if (match === undefined) return fail(`one of ${choices.join(', ')}`);
      return match;
    }
    case 'list': {
      const items = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' || typeof raw === 'number' ? String(raw).split(',') : fail('a comma-separated list');
      const cleaned = items.map((s) => s.trim()).filter((s) => s !== '');
      if (cleaned.length !== items.length) return fail('a list without empty entries');
      return cleaned;
    }
  }
}
