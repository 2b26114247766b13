import { readFasta } from '@virnucpro/fasta-stream';
import type { ShardSpec } from './shard-spec.js';

/** Which input records one shard runs, out of how many in the whole input. */
export interface ShardSelection {
  spec: ShardSpec;
  /** Records in the whole input. */
  inputRecords: number;
  /** Records of this shard and their bases. */
  records: number;
  bases: number;
  /** Whether the record at this 0-based position of the input belongs to the shard. */
  includes(recordIndex: number): boolean;
}

/**
 * Splits the input's records into `spec.count` parts balanced by bases and returns part `spec.index`.
 * Rule (longest processing time first): records by length, longest first (ties: input order), each to the part
 * with the fewest bases so far (ties: the lowest part). It needs every record length first (one extra pass over
 * the input, lengths only), but balances far better than any streaming rule when a few long genomes sit among
 * short reads, and it depends only on the input's records, so every shard job computes the same plan on its own.
 * A record is never split: all its chunks stay in one part, so consensus and sequence summaries stay whole.
 */
export async function selectShard(input: string, spec: ShardSpec): Promise<ShardSelection> {
  const lengths = await recordLengths(input);
  const owner = assignParts(lengths, spec.count);
  let records = 0;
  let bases = 0;
  for (let i = 0; i < lengths.length; i++) {
    if (owner[i] !== spec.index - 1) continue;
    records++;
    bases += lengths[i];
  }
  return { spec, inputRecords: lengths.length, records, bases, includes: (i) => owner[i] === spec.index - 1 };
}

/** The part (0-based) of every record: longest first, each to the lightest part (see selectShard). */
export function assignParts(lengths: ArrayLike<number>, parts: number): Uint32Array {
  const order = Array.from({ length: lengths.length }, (_, i) => i).sort((a, b) => lengths[b] - lengths[a] || a - b);
  const owner = new Uint32Array(lengths.length);
  const heap = new LightestPart(parts);
  for (const record of order) owner[record] = heap.take(lengths[record]);
  return owner;
}

async function recordLengths(input: string): Promise<Float64Array> {
  let lengths = new Float64Array(1024);
  let n = 0;
  for await (const record of readFasta(input)) {
    if (n === lengths.length) {
      const grown = new Float64Array(n * 2);
      grown.set(lengths);
      lengths = grown;
    }
    lengths[n++] = record.sequence.length;
  }
  return lengths.subarray(0, n);
}

/** Min-heap of parts by (bases so far, part number): O(log parts) per record even for thousands of parts. */
class LightestPart {
  private readonly load: Float64Array;
  private readonly heap: Uint32Array;

  constructor(parts: number) {
    this.load = new Float64Array(parts);
    this.heap = Uint32Array.from({ length: parts }, (_, i) => i);
  }

  /** The lightest part, after adding `bases` to it. */
  take(bases: number): number {
    const part = this.heap[0];
    this.load[part] += bases;
    this.siftDown(0);
    return part;
  }

  private lighter(a: number, b: number): boolean {
    return this.load[a] < this.load[b] || (this.load[a] === this.load[b] && a < b);
  }

  private siftDown(at: number): void {
    const n = this.heap.length;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let best = at;
      if (left < n && this.lighter(this.heap[left], this.heap[best])) best = left;
      if (right < n && this.lighter(this.heap[right], this.heap[best])) best = right;
      if (best === at) return;
      [this.heap[at], this.heap[best]] = [this.heap[best], this.heap[at]];
      at = best;
    }
  }
}
