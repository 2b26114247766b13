/**
 * The record ids seen so far, for the duplicate-id check, in 16–32 bytes a record (typed arrays filled to at most three quarters, open
 * addressing on a 64-bit hash of the id): a Map of the ids themselves held ~100 bytes a record, and each id a slice
 * of the block it was read from (1.3 M reads of 150 bp: ~110 MB). A hash is not the id: a match is a duplicate only
 * once the caller has compared the ids (a false match among 10^8 ids has a chance of ~3·10^-4).
 */
export class RecordIdSet {
  private low = new Uint32Array(1 << 12);
  private high = new Uint32Array(1 << 12);
  /** 1-based record number of the id in each slot; 0: empty. */
  private records = new Uint32Array(1 << 12);
  private size = 0;

  /** The record number an id with the same hash was added with, or undefined; adds `id` as `record` if none was. */
  addOrFind(id: string, record: number): number | undefined {
    const [low, high] = hash64(id);
    const mask = this.records.length - 1;
    for (let slot = low & mask; ; slot = (slot + 1) & mask) {
      const seen = this.records[slot];
      if (seen === 0) {
        this.low[slot] = low;
        this.high[slot] = high;
        this.records[slot] = record;
        if (++this.size * 4 > this.records.length * 3) this.grow();
        return undefined;
      }
      if (this.low[slot] === low && this.high[slot] === high) return seen;
    }
  }

  /** Ids (their hashes) held now. */
  get count(): number {
    return this.size;
  }

  /** The hashes held, sorted (each as high · 2^32 + low), for a run on disk (spilled-record-ids.ts). */
  sortedHashes(): BigUint64Array {
    const out = new BigUint64Array(this.size);
    const words = new Uint32Array(out.buffer); // little-endian: a hash's low word first, then its high word
    let n = 0;
    for (let slot = 0; slot < this.records.length; slot++) {
      if (this.records[slot] === 0) continue;
      words[2 * n] = this.low[slot];
      words[2 * n + 1] = this.high[slot];
      n++;
    }
    return out.sort();
  }

  /** Forgets every id (the arrays back to their first size). */
  clear(): void {
    this.low = new Uint32Array(1 << 12);
    this.high = new Uint32Array(1 << 12);
    this.records = new Uint32Array(1 << 12);
    this.size = 0;
  }

  private grow(): void {
    const { low, high, records } = this;
    const length = records.length * 2;
    this.low = new Uint32Array(length);
    this.high = new Uint32Array(length);
    this.records = new Uint32Array(length);
    const mask = length - 1;
    for (let i = 0; i < records.length; i++) {
      if (records[i] === 0) continue;
      let slot = low[i] & mask;
      while (this.records[slot] !== 0) slot = (slot + 1) & mask;
      this.low[slot] = low[i];
      this.high[slot] = high[i];
      this.records[slot] = records[i];
    }
  }
}

/** An id's 64-bit hash as sortedHashes gives it. */
export function idHash(id: string): bigint {
  const [low, high] = hash64(id);
  return (BigInt(high) << 32n) | BigInt(low);
}

/** Two 32-bit FNV-1a hashes of the id's UTF-16 code units (different offsets): 64 bits. */
function hash64(id: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return [a >>> 0, b >>> 0];
}
