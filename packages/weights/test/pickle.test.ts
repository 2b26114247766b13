// The pickle VM against CPython: every expected value here was produced by
// CPython's pickle.loads (test-data/weights/generated/make_fixtures.py).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { PyGlobal, PyObject } from '../src/index.js';
import { unpickle } from '../src/pickle/unpickler.js';
import { fixture } from './paths.js';

/** Our unpickled values in the JSON-with-tags form make_fixtures.py writes. */
function encode(value: unknown): unknown {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return value >= -(2n ** 53n) && value <= 2n ** 53n ? Number(value) : { $bigint: String(value) };
  if (typeof value === 'number') {
    if (Number.isNaN(value) || !Number.isFinite(value)) return { $float: Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf' };
    if (Object.is(value, -0)) return { $float: '-0.0' };
    return value;
  }
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('hex') };
  if (Array.isArray(value)) return value.map(encode);
  if (value instanceof Set) return { $set: [...value].map(encode).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)) };
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, encode(v)]));
  throw new Error(`unexpected ${typeof value}`);
}

// Python's json.dumps sorts keys only when asked; compare structurally.
const sortKeys = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(sortKeys) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, x]) => [k, sortKeys(x)])) : v;

describe('unpickle matches CPython on every protocol', () => {
  for (const protocol of [0, 1, 2, 3, 4, 5]) {
    it(`protocol ${protocol}`, async () => {
      const expected = JSON.parse(await readFile(fixture('generated', 'values.json'), 'utf8'));
      const bytes = new Uint8Array(await readFile(fixture('generated', `values.p${protocol}.pkl`)));
      const value = unpickle(bytes) as Record<string, unknown>;
      expect(sortKeys(encode(value))).toEqual(sortKeys(expected));
      // Memoised objects keep their identity (the same list pickled twice).
      const shared = value.shared as unknown[];
      expect(shared[0]).toBe(shared[1]);
    });
  }

  it('hand-written opcode sequences (text opcodes, LONG1/LONG4 signs, frames, sets, POP/DUP…)', async () => {
    const cases = JSON.parse(await readFile(fixture('generated', 'handcrafted.json'), 'utf8')) as { hex: string; expected: unknown }[];
    expect(cases.length).toBeGreaterThan(20);
    for (const { hex, expected } of cases) {
      expect(encode(unpickle(new Uint8Array(Buffer.from(hex, 'hex')))), hex).toEqual(expected);
    }
  });

  it("dicts as Maps keep non-string keys", () => {
    // {1: 'a', (2, 3): 'b'} pickled by CPython with protocol 2
    const bytes = Buffer.from('80027d7100284b0158010000006171014b024b038671025801000000627103752e', 'hex');
    const value = unpickle(new Uint8Array(bytes), { dicts: 'map' }) as Map<unknown, unknown>;
    expect(value).toBeInstanceOf(Map);
    expect(value.get(1)).toBe('a');
    expect([...value.keys()][1]).toEqual([2, 3]);
    expect(unpickle(new Uint8Array(bytes))).toEqual({ '1': 'a', '(2, 3)': 'b' });
  });
});

describe('malicious pickles are parsed, never executed', () => {
  const ascii = (s: string) => [...Buffer.from(s, 'latin1')];
  const binunicode = (s: string) => {
    const b = Buffer.from(s, 'utf8');
    return [0x58, b.length & 0xff, (b.length >> 8) & 0xff, 0, 0, ...b];
  };
  const marker = `/tmp/virnucpro-weights-pwned-${process.pid}`;

  it('os.system via GLOBAL + REDUCE becomes an inert record', async () => {
    // c os\nsystem\n  X'touch …'  TUPLE1  REDUCE  STOP
    const bytes = new Uint8Array([0x80, 2, ...ascii('cos\nsystem\n'), ...binunicode(`touch ${marker}`), 0x85, 0x52, 0x2e]);
    const value = unpickle(bytes);
    expect(value).toBeInstanceOf(PyObject);
    expect((value as PyObject).className).toBe('os.system');
    expect((value as PyObject).args).toEqual([`touch ${marker}`]);
    const { existsSync } = await import('node:fs');
    expect(existsSync(marker)).toBe(false);
  });

  it('builtins.eval via STACK_GLOBAL (protocol 4) and subprocess.Popen via REDUCE with a list', () => {
    const evalBytes = new Uint8Array([
      0x80, 4, ...binunicode('builtins'), ...binunicode('eval'), 0x93, ...binunicode("__import__('os').system('id')"), 0x85, 0x52, 0x2e,
    ]);
    const evaluated = unpickle(evalBytes) as PyObject;
    expect(evaluated.className).toBe('builtins.eval');
    expect(evaluated.args).toEqual(["__import__('os').system('id')"]);

    const popenBytes = new Uint8Array([
      0x80, 2, ...ascii('csubprocess\nPopen\n'), 0x5d, 0x28, ...binunicode('/bin/sh'), ...binunicode('-c'), ...binunicode('id'), 0x65, 0x85, 0x52, 0x2e,
    ]);
    const popen = unpickle(popenBytes) as PyObject;
    expect(popen.className).toBe('subprocess.Popen');
    expect(popen.args).toEqual([['/bin/sh', '-c', 'id']]);
  });

  it('INST / OBJ / NEWOBJ with dangerous classes and BUILD with __setstate__-style state stay inert', () => {
    const inst = unpickle(new Uint8Array([0x28, ...ascii("S'id'\n"), ...ascii('ios\nsystem\n'), 0x2e])) as PyObject;
    expect(inst.className).toBe('os.system');
    expect(inst.args).toEqual(['id']);
    // OBJ: MARK, class, args…  — the class is the FIRST item after the mark (CPython load_obj).
    const obj = unpickle(new Uint8Array([0x28, ...ascii('cposix\nsystem\n'), ...ascii("S'id'\n"), 0x6f, 0x2e])) as PyObject;
    expect(obj.className).toBe('posix.system');
    expect(obj.args).toEqual(['id']);
    // NEWOBJ + BUILD with a dict state: recorded as attributes, nothing called.
    const built = unpickle(
      new Uint8Array([0x80, 2, ...ascii('cevil\nThing\n'), 0x29, 0x81, 0x7d, ...binunicode('__setstate__'), ...binunicode('x'), 0x73, 0x62, 0x2e]),
    ) as PyObject;
    expect(built.pyClass).toEqual(new PyGlobal('evil', 'Thing'));
    expect(built.dict.__setstate__).toBe('x');
  });

  it('a "__proto__" key never changes a prototype', () => {
    const bytes = new Uint8Array([0x80, 2, 0x7d, ...binunicode('__proto__'), 0x7d, ...binunicode('polluted'), 0x88, 0x73, 0x73, 0x2e]);
    const value = unpickle(bytes) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('corrupt pickles give one error with the byte offset', () => {
    expect(() => unpickle(new Uint8Array([0x80, 2, 0x4b]), { source: 'x.pkl' })).toThrow(/x\.pkl: pickle byte 3: needs 1 more bytes/);
    expect(() => unpickle(new Uint8Array([0x80, 2, 0x4b, 1]))).toThrow(/ends without a STOP/);
    expect(() => unpickle(new Uint8Array([0x80, 2, 0xff]))).toThrow(/pickle byte 2: unknown opcode 0xff/);
    expect(() => unpickle(new Uint8Array([0x80, 2, 0x68, 9, 0x2e]))).toThrow(/memo entry 9 was never stored/);
    expect(() => unpickle(new Uint8Array([0x80, 9]))).toThrow(/unsupported pickle protocol 9/);
    expect(() => unpickle(new Uint8Array([0x80, 2, 0x51, 0x2e]))).toThrow(/stack underflow/);
    expect(() => unpickle(new Uint8Array([0x80, 2, 0x4b, 1, 0x4b, 2, 0x52, 0x2e]))).toThrow(/REDUCE arguments must be a tuple/);
    expect(() => unpickle(new Uint8Array([0x80, 2, 0x58, 0xff, 0xff, 0xff, 0x7f, 0x2e]))).toThrow(/needs 2147483647 more bytes/);
  });
});
