// Bounds-checked little-endian reads over the pickle bytes; every failure
// names the byte offset so a corrupt file gives one precise error.
export class PickleReader {
  private readonly view: DataView;
  position = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly source: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get atEnd(): boolean {
    return this.position >= this.bytes.length;
  }

  fail(message: string, at = this.position): never {
    throw new Error(`${this.source}: pickle byte ${at}: ${message}`);
  }

  private need(n: number): number {
    if (!Number.isSafeInteger(n) || n < 0 || this.position + n > this.bytes.length) {
      this.fail(`needs ${n} more bytes but the pickle ends at byte ${this.bytes.length}`);
    }
    const at = this.position;
    this.position += n;
    return at;
  }

  byte(): number {
    return this.view.getUint8(this.need(1));
  }
  uint16(): number {
    return this.view.getUint16(this.need(2), true);
  }
  int32(): number {
    return this.view.getInt32(this.need(4), true);
  }
  uint32(): number {
    return this.view.getUint32(this.need(4), true);
  }
  uint64(): number {
    const value = this.view.getBigUint64(this.need(8), true);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(`length ${value} is too large`, this.position - 8);
    return Number(value);
  }
  float64BigEndian(): number {
    return this.view.getFloat64(this.need(8), false);
  }

  /** A view (no copy) of the next n bytes. */
  bytesView(n: number): Uint8Array {
    const at = this.need(n);
    return this.bytes.subarray(at, at + n);
  }

  /** Bytes up to (not including) the next '\n', for protocol-0 text opcodes. */
  line(): Uint8Array {
    const start = this.position;
    const end = this.bytes.indexOf(0x0a, start);
    if (end < 0) this.fail('a text argument has no terminating newline');
    this.position = end + 1;
    return this.bytes.subarray(start, end);
  }
}

const utf8 = new TextDecoder('utf-8');
const latin1 = new TextDecoder('latin1');

export function decodeUtf8(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}

export function decodeLatin1(bytes: Uint8Array): string {
  return latin1.decode(bytes);
}

/** Signed little-endian two's-complement integer (LONG1/LONG4); number when safe, else bigint. */
export function decodeLong(bytes: Uint8Array): number | bigint {
  if (bytes.length === 0) return 0;
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]);
  if (bytes[bytes.length - 1] & 0x80) value -= 1n << BigInt(8 * bytes.length);
  return narrowInt(value);
}

export function narrowInt(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/** Python 2 `raw-unicode-escape` (UNICODE opcode): only \uXXXX and \UXXXXXXXX are escapes. */
export function decodeRawUnicodeEscape(bytes: Uint8Array): string {
  const text = decodeLatin1(bytes);
  return text.replace(/\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})/g, (_, u4: string, u8: string) =>
    String.fromCodePoint(parseInt(u4 ?? u8, 16)),
  );
}

/** Body of a protocol-0 STRING: a Python repr in quotes with backslash escapes. */
export function decodeEscapedString(bytes: Uint8Array): Uint8Array | undefined {
  const text = decodeLatin1(bytes);
  if (text.length < 2 || text[0] !== text[text.length - 1] || (text[0] !== "'" && text[0] !== '"')) return undefined;
  const body = text.slice(1, -1);
  const out: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, '\\': 92, "'": 39, '"': 34, a: 7, b: 8, f: 12, v: 11, '0': 0 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      out.push(c.charCodeAt(0));
      continue;
    }
    const next = body[++i];
    if (next === 'x') {
      out.push(parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (next >= '0' && next <= '7') {
      const octal = /^[0-7]{1,3}/.exec(body.slice(i))![0];
      out.push(parseInt(octal, 8) & 0xff);
      i += octal.length - 1;
    } else if (next in simple) {
      out.push(simple[next]);
    } else if (next === '\n') {
      // line continuation
    } else {
      out.push(92, next.charCodeAt(0));
    }
  }
  return Uint8Array.from(out);
}
