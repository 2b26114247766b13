// How Python values look after unpickling. Nothing here can run code: a class
// or function named by the pickle is only ever a name (PyGlobal), and
// "calling" it records the call (PyObject) instead of performing it.
//
//   None → null, bool → boolean, int → number (bigint beyond 2^53), float → number,
//   str → string, bytes/bytearray → Uint8Array, tuple/list → Array, set/frozenset → Set,
//   dict (and OrderedDict) → plain object (or Map, by option), instances → PyObject.

/** A module-level name the pickle refers to (GLOBAL / STACK_GLOBAL / INST). Inert. */
export class PyGlobal {
  constructor(
    readonly module: string,
    readonly name: string,
  ) {}
  get qualifiedName(): string {
    return `${this.module}.${this.name}`;
  }
  toString(): string {
    return `<global ${this.qualifiedName}>`;
  }
}

/**
 * An instance of a class we do not interpret, or the recorded result of
 * calling a global we do not interpret (e.g. `os.system('…')` becomes
 * `PyObject { className: 'os.system', args: ['…'] }`). `dict` holds the
 * instance state set by BUILD (for torch.nn modules: `_parameters`,
 * `_buffers`, `_modules`, `training`, …).
 */
export class PyObject {
  /** Attributes (`__dict__`) from BUILD; also slot state. */
  readonly dict: Record<string, unknown> = {};
  /** BUILD state that was not a dict (kept verbatim). */
  state: unknown = undefined;
  /** Items appended (list subclasses) or set (dict subclasses) on the object. */
  readonly listItems: unknown[] = [];
  readonly dictItems: [unknown, unknown][] = [];

  constructor(
    readonly pyClass: PyGlobal,
    readonly args: unknown[],
    readonly kwargs: Record<string, unknown> | undefined,
    /** How the pickle produced it: a REDUCE call, NEWOBJ/NEWOBJ_EX, or INST/OBJ. */
    readonly createdBy: 'reduce' | 'newobj' | 'inst',
  ) {}

  get className(): string {
    return this.pyClass.qualifiedName;
  }
}

/**
 * A Python callable this package implements itself as a pure data
 * transformation (e.g. `collections.OrderedDict`, `torch._utils._rebuild_tensor_v2`).
 * Only allow-listed names become PyCallables; see the resolver passed to `unpickle`.
 */
export class PyCallable {
  constructor(
    readonly qualifiedName: string,
    readonly call: (args: unknown[], kwargs?: Record<string, unknown>) => unknown,
  ) {}
}

/** Python attributes attached to a dict by BUILD (e.g. a state dict's `_metadata`), kept off its keys. */
export const PY_ATTRIBUTES = Symbol.for('@virnucpro/weights.pythonAttributes');

export function pythonAttributes(value: object): Record<string, unknown> | undefined {
  return (value as { [PY_ATTRIBUTES]?: Record<string, unknown> })[PY_ATTRIBUTES];
}

export type DictMode = 'object' | 'map';

export function isPlainDict(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Sets a dict entry. Object mode keys are strings; `__proto__` becomes an own property, never the prototype. */
export function setDictItem(dict: Record<string, unknown> | Map<unknown, unknown>, key: unknown, value: unknown): void {
  if (dict instanceof Map) {
    dict.set(key, value);
    return;
  }
  const name = dictKeyString(key);
  if (name === '__proto__') {
    Object.defineProperty(dict, name, { value, enumerable: true, writable: true, configurable: true });
  } else {
    dict[name] = value;
  }
}

/** Python dict keys → JS property names: str as is; int/float/bool/None as Python would print them. */
function dictKeyString(key: unknown): string {
  if (typeof key === 'string') return key;
  if (key === null) return 'None';
  if (key === true) return 'True';
  if (key === false) return 'False';
  if (typeof key === 'number' || typeof key === 'bigint') return String(key);
  if (Array.isArray(key)) return `(${key.map(dictKeyString).join(', ')}${key.length === 1 ? ',' : ''})`;
  if (key instanceof PyGlobal) return key.qualifiedName;
  throw new Error(`dict key of type ${describe(key)} cannot be a property name; unpickle with { dicts: 'map' }`);
}

export function describe(value: unknown): string {
  if (value === null) return 'None';
  if (value instanceof PyObject) return `${value.className} instance`;
  if (value instanceof PyGlobal) return value.toString();
  if (value instanceof PyCallable) return `<callable ${value.qualifiedName}>`;
  if (Array.isArray(value)) return 'tuple/list';
  if (value instanceof Uint8Array) return 'bytes';
  if (value instanceof Map || isPlainDict(value)) return 'dict';
  return typeof value;
}
