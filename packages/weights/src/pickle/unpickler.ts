// A pickle virtual machine (protocols 0-5) that never executes anything.
// It follows CPython's Unpickler opcode by opcode, but GLOBAL only ever
// yields an allow-listed PyCallable (a data transformation written here) or
// an inert PyGlobal name, and calling an inert name records a PyObject.
// Why not the npm `pickleparser` package: see README ("Why a pickle VM of our own").
import { builtinGlobals, normalizeModule, type GlobalResolver } from './builtin-globals.js';
import { OP, HIGHEST_PROTOCOL } from './opcodes.js';
import {
  PickleReader,
  decodeEscapedString,
  decodeLatin1,
  decodeLong,
  decodeRawUnicodeEscape,
  decodeUtf8,
  narrowInt,
} from './pickle-reader.js';
import {
  PY_ATTRIBUTES,
  PyCallable,
  PyGlobal,
  PyObject,
  describe,
  isPlainDict,
  setDictItem,
  type DictMode,
} from './python-objects.js';

export interface UnpickleOptions {
  /** Name used in error messages (e.g. "model.pth: archive/data.pkl"). */
  source?: string;
  /**
   * Consulted first for every GLOBAL. Return a PyCallable to interpret a name,
   * anything else to stand for it, or undefined for the default (built-in
   * allow-list, else an inert PyGlobal).
   */
  resolveGlobal?: GlobalResolver;
  /** persistent_load (PERSID/BINPERSID); without it, persistent ids are an error. */
  persistentLoad?: (pid: unknown) => unknown;
  /** Python dicts as plain objects (default; keys become strings) or as Maps (keys kept as is). */
  dicts?: DictMode;
}

const MARK_UNDERFLOW = 'a MARK-delimited opcode found no MARK';

export function unpickle(bytes: Uint8Array, options: UnpickleOptions = {}): unknown {
  return unpickleAt(bytes, 0, options).value;
}

/** Unpickles the pickle starting at byte `start`; `end` is the byte after its STOP (files can hold several pickles). */
export function unpickleAt(bytes: Uint8Array, start: number, options: UnpickleOptions = {}): { value: unknown; end: number } {
  const source = options.source ?? 'pickle';
  const dicts = options.dicts ?? 'object';
  const builtins = builtinGlobals(dicts);
  const reader = new PickleReader(bytes, source);
  reader.position = start;
  const newDict = () => (dicts === 'map' ? new Map<unknown, unknown>() : ({} as Record<string, unknown>));

  let stack: unknown[] = [];
  const metastack: unknown[][] = [];
  const memo = new Map<number, unknown>();
  let opcodeAt = 0;
  const fail = (message: string): never => reader.fail(message, opcodeAt);

  const pop = (): unknown => {
    if (stack.length === 0) fail('stack underflow');
    return stack.pop();
  };
  const top = (): unknown => {
    if (stack.length === 0) fail('stack underflow');
    return stack[stack.length - 1];
  };
  const popMark = (): unknown[] => {
    const items = stack;
    const previous = metastack.pop();
    if (!previous) fail(MARK_UNDERFLOW);
    stack = previous!;
    return items;
  };
  const resolveGlobal = (rawModule: string, name: string): unknown => {
    const module = normalizeModule(rawModule);
    const custom = options.resolveGlobal?.(module, name);
    if (custom !== undefined) return custom;
    return builtins.get(`${module}.${name}`) ?? new PyGlobal(module, name);
  };
  const instantiate = (cls: unknown, args: unknown[], kwargs: Record<string, unknown> | undefined, how: PyObject['createdBy']) => {
    if (cls instanceof PyCallable) return cls.call(args, kwargs);
    if (cls instanceof PyGlobal) return new PyObject(cls, args, kwargs, how);
    return fail(`cannot call ${describe(cls)}`);
  };
  const persistentLoad = (pid: unknown) => {
    if (!options.persistentLoad) fail('the pickle refers to persistent ids but no persistent_load was given');
    return options.persistentLoad!(pid);
  };
  const memoGet = (index: number) => {
    if (!memo.has(index)) fail(`memo entry ${index} was never stored`);
    return memo.get(index);
  };
  const textLine = () => decodeLatin1(reader.line());

  for (;;) {
    if (reader.atEnd) fail('pickle ends without a STOP opcode');
    opcodeAt = reader.position;
    const op = reader.byte();
    switch (op) {
      // --- framing and control
      case OP.PROTO: {
        const version = reader.byte();
        if (version > HIGHEST_PROTOCOL) fail(`unsupported pickle protocol ${version}`);
        break;
      }
      case OP.FRAME:
        reader.uint64(); // frames only group opcodes; the whole pickle is already in memory
        break;
      case OP.STOP:
        return { value: pop(), end: reader.position };
      case OP.MARK:
        metastack.push(stack);
        stack = [];
        break;
      case OP.POP:
        if (stack.length > 0) stack.pop();
        else popMark();
        break;
      case OP.POP_MARK:
        popMark();
        break;
      case OP.DUP:
        stack.push(top());
        break;

      // --- memo
      case OP.PUT:
        memo.set(Number(textLine()), top());
        break;
      case OP.BINPUT:
        memo.set(reader.byte(), top());
        break;
      case OP.LONG_BINPUT:
        memo.set(reader.uint32(), top());
        break;
      case OP.MEMOIZE:
        memo.set(memo.size, top());
        break;
      case OP.GET:
        stack.push(memoGet(Number(textLine())));
        break;
      case OP.BINGET:
        stack.push(memoGet(reader.byte()));
        break;
      case OP.LONG_BINGET:
        stack.push(memoGet(reader.uint32()));
        break;

      // --- constants and numbers
      case OP.NONE:
        stack.push(null);
        break;
      case OP.NEWTRUE:
        stack.push(true);
        break;
      case OP.NEWFALSE:
        stack.push(false);
        break;
      case OP.INT: {
        const text = textLine();
        if (text === '00') stack.push(false);
        else if (text === '01') stack.push(true);
        else stack.push(parseIntText(text, fail));
        break;
      }
      case OP.LONG:
        stack.push(parseIntText(textLine().replace(/L$/, ''), fail));
        break;
      case OP.BININT:
        stack.push(reader.int32());
        break;
      case OP.BININT1:
        stack.push(reader.byte());
        break;
      case OP.BININT2:
        stack.push(reader.uint16());
        break;
      case OP.LONG1:
        stack.push(decodeLong(reader.bytesView(reader.byte())));
        break;
      case OP.LONG4: {
        const n = reader.int32();
        if (n < 0) fail('LONG4 with a negative length');
        stack.push(decodeLong(reader.bytesView(n)));
        break;
      }
      case OP.FLOAT:
        stack.push(parseFloatText(textLine(), fail));
        break;
      case OP.BINFLOAT:
        stack.push(reader.float64BigEndian());
        break;

      // --- strings and bytes
      case OP.STRING: {
        const raw = decodeEscapedString(reader.line());
        if (!raw) fail('STRING argument is not a quoted Python string');
        stack.push(decodeText(raw!));
        break;
      }
      case OP.BINSTRING: {
        const n = reader.int32();
        if (n < 0) fail('BINSTRING with a negative length');
        stack.push(decodeText(reader.bytesView(n)));
        break;
      }
      case OP.SHORT_BINSTRING:
        stack.push(decodeText(reader.bytesView(reader.byte())));
        break;
      case OP.UNICODE:
        stack.push(decodeRawUnicodeEscape(reader.line()));
        break;
      case OP.BINUNICODE:
        stack.push(decodeUtf8(reader.bytesView(reader.uint32())));
        break;
      case OP.SHORT_BINUNICODE:
        stack.push(decodeUtf8(reader.bytesView(reader.byte())));
        break;
      case OP.BINUNICODE8:
        stack.push(decodeUtf8(reader.bytesView(reader.uint64())));
        break;
      case OP.BINBYTES:
        stack.push(reader.bytesView(reader.uint32()).slice());
        break;
      case OP.SHORT_BINBYTES:
        stack.push(reader.bytesView(reader.byte()).slice());
        break;
      case OP.BINBYTES8:
      case OP.BYTEARRAY8:
        stack.push(reader.bytesView(reader.uint64()).slice());
        break;
      case OP.NEXT_BUFFER:
        fail('out-of-band buffers (pickle protocol 5 NEXT_BUFFER) are not supported');
        break;
      case OP.READONLY_BUFFER:
        top();
        break;

      // --- containers
      case OP.EMPTY_TUPLE:
      case OP.EMPTY_LIST:
        stack.push([]);
        break;
      case OP.TUPLE:
      case OP.LIST: {
        const items = popMark(); // popMark replaces `stack`: pop first, then push
        stack.push(items);
        break;
      }
      case OP.TUPLE1:
        stack.push([pop()]);
        break;
      case OP.TUPLE2: {
        const b = pop();
        const a = pop();
        stack.push([a, b]);
        break;
      }
      case OP.TUPLE3: {
        const c = pop();
        const b = pop();
        const a = pop();
        stack.push([a, b, c]);
        break;
      }
      case OP.APPEND: {
        const value = pop();
        appendItems(top(), [value], fail);
        break;
      }
      case OP.APPENDS: {
        const items = popMark();
        appendItems(top(), items, fail);
        break;
      }
      case OP.EMPTY_DICT:
        stack.push(newDict());
        break;
      case OP.DICT: {
        const items = popMark();
        const dict = newDict();
        for (let i = 0; i + 1 < items.length; i += 2) setDictItem(dict, items[i], items[i + 1]);
        stack.push(dict);
        break;
      }
      case OP.SETITEM: {
        const value = pop();
        const key = pop();
        setItems(top(), [key, value], fail);
        break;
      }
      case OP.SETITEMS: {
        const items = popMark();
        if (items.length % 2 !== 0) fail('SETITEMS with an odd number of items');
        setItems(top(), items, fail);
        break;
      }
      case OP.EMPTY_SET:
        stack.push(new Set());
        break;
      case OP.FROZENSET: {
        const items = popMark();
        stack.push(new Set(items));
        break;
      }
      case OP.ADDITEMS: {
        const items = popMark();
        const set = top();
        if (set instanceof Set) for (const item of items) set.add(item);
        else if (set instanceof PyObject) set.listItems.push(...items);
        else fail(`ADDITEMS on ${describe(set)}`);
        break;
      }

      // --- names, calls and objects (nothing is ever executed)
      case OP.GLOBAL: {
        const module = textLine();
        const name = textLine();
        stack.push(resolveGlobal(module, name));
        break;
      }
      case OP.STACK_GLOBAL: {
        const name = pop();
        const module = pop();
        if (typeof module !== 'string' || typeof name !== 'string') fail('STACK_GLOBAL needs two strings');
        stack.push(resolveGlobal(module as string, name as string));
        break;
      }
      case OP.EXT1:
      case OP.EXT2:
      case OP.EXT4:
        fail('copyreg extension codes (EXT1/2/4) are not supported');
        break;
      case OP.REDUCE: {
        const args = pop();
        const callable = pop();
        if (!Array.isArray(args)) fail(`REDUCE arguments must be a tuple, got ${describe(args)}`);
        stack.push(instantiate(callable, args as unknown[], undefined, 'reduce'));
        break;
      }
      case OP.NEWOBJ: {
        const args = pop();
        const cls = pop();
        if (!Array.isArray(args)) fail(`NEWOBJ arguments must be a tuple, got ${describe(args)}`);
        stack.push(instantiate(cls, args as unknown[], undefined, 'newobj'));
        break;
      }
      case OP.NEWOBJ_EX: {
        const kwargs = pop();
        const args = pop();
        const cls = pop();
        if (!Array.isArray(args)) fail(`NEWOBJ_EX arguments must be a tuple, got ${describe(args)}`);
        const kw = kwargs instanceof Map ? Object.fromEntries(kwargs) : (kwargs as Record<string, unknown>);
        stack.push(instantiate(cls, args as unknown[], kw, 'newobj'));
        break;
      }
      case OP.INST: {
        const module = textLine();
        const name = textLine();
        const args = popMark();
        stack.push(instantiate(resolveGlobal(module, name), args, undefined, 'inst'));
        break;
      }
      case OP.OBJ: {
        const items = popMark();
        if (items.length === 0) fail('OBJ without a class');
        const [cls, ...args] = items;
        stack.push(instantiate(cls, args, undefined, 'inst'));
        break;
      }
      case OP.BUILD: {
        const state = pop();
        build(top(), state, fail);
        break;
      }
      case OP.PERSID:
        stack.push(persistentLoad(decodeLatin1(reader.line())));
        break;
      case OP.BINPERSID:
        stack.push(persistentLoad(pop()));
        break;

      default:
        fail(`unknown opcode 0x${op.toString(16).padStart(2, '0')}`);
    }
  }
}

/** Python 2 str: UTF-8 when valid (torch.load's default encoding), else latin-1. */
function decodeText(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return decodeLatin1(bytes);
  }
}

function parseIntText(text: string, fail: (m: string) => never): number | bigint {
  try {
    return narrowInt(BigInt(text.trim()));
  } catch {
    return fail(`${JSON.stringify(text)} is not an integer`);
  }
}

function parseFloatText(text: string, fail: (m: string) => never): number {
  const t = text.trim().toLowerCase();
  if (t === 'inf' || t === '+inf') return Infinity;
  if (t === '-inf') return -Infinity;
  if (t === 'nan' || t === '-nan') return NaN;
  const value = Number(t);
  if (t === '' || Number.isNaN(value)) fail(`${JSON.stringify(text)} is not a float`);
  return value;
}

function appendItems(target: unknown, items: unknown[], fail: (m: string) => never): void {
  if (Array.isArray(target)) {
    for (const item of items) target.push(item);
  } else if (target instanceof PyObject) {
    target.listItems.push(...items);
  } else if (target instanceof Set) {
    for (const item of items) target.add(item);
  } else {
    fail(`APPEND on ${describe(target)}`);
  }
}

function setItems(target: unknown, items: unknown[], fail: (m: string) => never): void {
  if (target instanceof Map || isPlainDict(target)) {
    for (let i = 0; i < items.length; i += 2) setDictItem(target as Record<string, unknown>, items[i], items[i + 1]);
  } else if (target instanceof PyObject) {
    for (let i = 0; i < items.length; i += 2) target.dictItems.push([items[i], items[i + 1]]);
  } else {
    fail(`SETITEM on ${describe(target)}`);
  }
}

/** BUILD: attach state. Instances get their __dict__ (and slot state); anything else keeps it off its data. */
function build(target: unknown, state: unknown, fail: (m: string) => never): void {
  if (target instanceof PyObject) {
    const merge = (from: unknown) => {
      if (from instanceof Map) for (const [k, v] of from) setDictItem(target.dict, k, v);
      else if (isPlainDict(from)) for (const k of Object.keys(from)) setDictItem(target.dict, k, from[k]);
    };
    if (isPlainDict(state) || state instanceof Map) merge(state);
    else if (
      Array.isArray(state) &&
      state.length === 2 &&
      state.every((s) => s === null || isPlainDict(s) || s instanceof Map)
    ) {
      merge(state[0]);
      merge(state[1]);
    } else if (state !== null) target.state = state;
    return;
  }
  if (target === null || typeof target !== 'object') fail(`BUILD on ${describe(target)}`);
  if (state === null) return;
  Object.defineProperty(target, PY_ATTRIBUTES, { value: state, enumerable: false, configurable: true, writable: true });
}
