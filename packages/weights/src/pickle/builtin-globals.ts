// The few standard-library callables a data pickle legitimately needs, each
// re-implemented as a pure data transformation. Everything else named by a
// pickle stays an inert PyGlobal.
import { PyCallable, PyGlobal, PyObject, setDictItem, type DictMode } from './python-objects.js';

export type GlobalResolver = (module: string, name: string) => unknown;

// Python 2 module names that Python 3's unpickler maps (Lib/_compat_pickle.py).
const MODULE_ALIASES: Record<string, string> = { __builtin__: 'builtins', copy_reg: 'copyreg' };

export function normalizeModule(module: string): string {
  return MODULE_ALIASES[module] ?? module;
}

export function builtinGlobals(dicts: DictMode): Map<string, PyCallable> {
  const newDict = () => (dicts === 'map' ? new Map<unknown, unknown>() : ({} as Record<string, unknown>));
  const table = new Map<string, PyCallable>();
  const add = (qualifiedName: string, call: PyCallable['call']) => table.set(qualifiedName, new PyCallable(qualifiedName, call));

  add('collections.OrderedDict', (args) => {
    const dict = newDict();
    const init = args[0];
    if (Array.isArray(init)) for (const pair of init) if (Array.isArray(pair)) setDictItem(dict, pair[0], pair[1]);
    return dict;
  });
  add('builtins.dict', () => newDict());
  add('builtins.list', (args) => (Array.isArray(args[0]) ? [...args[0]] : []));
  add('builtins.set', (args) => new Set(Array.isArray(args[0]) ? args[0] : []));
  add('builtins.frozenset', (args) => new Set(Array.isArray(args[0]) ? args[0] : []));
  add('builtins.bytes', (args) => toBytes(args));
  add('builtins.bytearray', (args) => toBytes(args));
  // Protocol 2 pickles bytes as _codecs.encode(latin-1 text, 'latin1').
  add('_codecs.encode', (args) => toBytes(args));
  // Protocol 0/1 instances of plain classes: copyreg._reconstructor(cls, object, None).
  add('copyreg._reconstructor', (args) => {
    const [cls, , state] = args;
    if (!(cls instanceof PyGlobal)) throw new Error(`copyreg._reconstructor expects a class, got ${String(cls)}`);
    const obj = new PyObject(cls, [], undefined, 'reduce');
    if (state !== null && state !== undefined) obj.state = state;
    return obj;
  });
  return table;
}

function toBytes(args: unknown[]): Uint8Array {
  const [value, encoding] = args;
  if (value === undefined) return new Uint8Array(0);
  if (value instanceof Uint8Array) return value.slice();
  if (Array.isArray(value)) return Uint8Array.from(value as number[]);
  if (typeof value === 'string') {
    const enc = typeof encoding === 'string' ? encoding.toLowerCase().replace('_', '-') : 'latin1';
    if (enc === 'utf-8' || enc === 'utf8') return new TextEncoder().encode(value);
    if (enc === 'latin1' || enc === 'latin-1' || enc === 'iso-8859-1' || enc === 'ascii') {
      return Uint8Array.from(value, (c) => c.charCodeAt(0) & 0xff);
    }
    throw new Error(`unsupported text encoding ${JSON.stringify(encoding)} for bytes`);
  }
  if (typeof value === 'number') return new Uint8Array(value);
  throw new Error(`cannot make bytes from a ${typeof value}`);
}
