import { isAscii, isUtf8 } from 'node:buffer';

/**
 * Checks a byte stream chunk by chunk for valid UTF-8 (Python decodes FASTA text as UTF-8 and
 * rejects anything else), carrying a character split across a chunk boundary to the next chunk.
 * Pure-ASCII chunks, the normal case, cost one SIMD pass.
 */
export class Utf8Validator {
  private carry: Buffer = Buffer.alloc(0);

  /** Offset in `chunk` of the first byte that makes the stream invalid, or -1. */
  check(chunk: Buffer): number {
    let start = 0;
    if (this.carry.length > 0) {
      const need = sequenceLength(this.carry[0]) - this.carry.length;
      const take = Math.min(need, chunk.length);
      const joined = Buffer.concat([this.carry, chunk.subarray(0, take)]);
      for (let i = this.carry.length; i < joined.length; i++) {
        if ((joined[i] & 0xc0) !== 0x80) return i - this.carry.length;
      }
      if (take < need) {
        this.carry = joined;
        return -1;
      }
      if (!isUtf8(joined)) return 0;
      this.carry = Buffer.alloc(0);
      start = take;
    }
    const rest = chunk.subarray(start);
    if (isAscii(rest)) return -1;
    const cut = incompleteTailStart(rest);
    const whole = rest.subarray(0, cut);
    if (!isUtf8(whole)) return start + firstInvalidOffset(whole);
    this.carry = Buffer.from(rest.subarray(cut));
    return -1;
  }

  /** True when the stream did not end inside a multi-byte character. */
  get complete(): boolean {
    return this.carry.length === 0;
  }
}

function sequenceLength(lead: number): number {
  if (lead >= 0xf0) return 4;
  if (lead >= 0xe0) return 3;
  return 2;
}

/** Where a multi-byte character that continues in the next chunk starts (or bytes.length). */
function incompleteTailStart(bytes: Buffer): number {
  const n = bytes.length;
  for (let k = 1; k <= Math.min(3, n); k++) {
    const b = bytes[n - k];
    if ((b & 0xc0) === 0x80) continue;
    if (b >= 0xc0 && sequenceLength(b) > k) return n - k;
    return n;
  }
  return n;
}

/** Byte offset of the first invalid sequence (error path only). */
function firstInvalidOffset(bytes: Buffer): number {
  const text = bytes.toString('utf8');
  const bad = text.indexOf('\ufffd');
  return bad < 0 ? 0 : Buffer.byteLength(text.slice(0, bad), 'utf8');
}
