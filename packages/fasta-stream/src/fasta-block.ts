import type { FastaRecord } from './fasta-record.js';
import type { FastaScanner } from './fasta-scanner.js';
import { pythonFirstWord, pythonRstrip } from './python-whitespace.js';

/**
 * The records completed by one read of the input, without making a string per record up front.
 * `readFastaBlocks` yields these; lengths are known without touching the sequence bytes, and ids,
 * descriptions and sequences are made on request, with the same meaning as `FastaRecord`.
 *
 * A block reads the reader's buffer: it is valid until the next block is requested (its methods then
 * throw). Keep `records()` (plain strings) for anything you need later.
 */
export interface FastaBlock {
  /** Number of records. */
  readonly length: number;
  /** Residues in record i (the length of its `sequence`). */
  sequenceLength(i: number): number;
  id(i: number): string;
  description(i: number): string;
  sequence(i: number): string;
  record(i: number): FastaRecord;
  /** Every record, as plain objects that stay valid. */
  records(): FastaRecord[];
}

/** A block of records found by the WebAssembly scanner: four table entries per record, raw bytes in its memory. */
export class ScannedBlock implements FastaBlock {
  readonly length: number;
  private readonly table: Uint32Array;
  private readonly generation: number;

  constructor(
    private readonly scanner: FastaScanner,
    table: Uint32Array,
    count: number,
  ) {
    // The scanner's own table: it is only rewritten after the next block is requested, when this one is stale.
    this.table = table;
    this.length = count;
    this.generation = scanner.generation;
  }

  sequenceLength(i: number): number {
    return this.table[this.entry(i) + 3];
  }

  id(i: number): string {
    return pythonFirstWord(this.description(i));
  }

  description(i: number): string {
    const k = this.entry(i);
    return pythonRstrip(ascii(this.scanner.bytes, this.table[k] + 1, this.table[k + 1]));
  }

  sequence(i: number): string {
    const k = this.entry(i);
    const t = this.table;
    const start = this.sequenceStart(k);
    if (t[k + 2] - start === t[k + 3]) return ascii(this.scanner.bytes, start, t[k + 2]); // no LFs inside
    return ascii(this.scanner.squeeze(start, t[k + 2]), 0, undefined);
  }

  record(i: number): FastaRecord {
    const description = this.description(i);
    return { id: pythonFirstWord(description), description, sequence: this.sequence(i) };
  }

  records(): FastaRecord[] {
    this.entry(0);
    const t = this.table;
    const n = this.length;
    const out: FastaRecord[] = new Array(n);
    if (n === 0) return out;
    const first = t[0];
    const last = t[(n - 1) * 4 + 2];
    if ((last - first) / n > SMALL_RECORD) {
      for (let i = 0; i < n; i++) out[i] = this.record(i);
      return out;
    }
    // Small records (reads): decode the block once and cut every field out of that one string.
    const text = ascii(this.scanner.bytes, first, last);
    for (let i = 0, k = 0; i < n; i++, k += 4) {
      const header = text.slice(t[k] + 1 - first, t[k + 1] - first);
      const description = pythonRstrip(header);
      const start = this.sequenceStart(k) - first;
      const raw = text.slice(start, t[k + 2] - first);
      const sequence = raw.length === t[k + 3] ? raw : raw.replaceAll('\n', '');
      out[i] = { id: pythonFirstWord(description), description, sequence };
    }
    return out;
  }

  private sequenceStart(k: number): number {
    return Math.min(this.table[k + 1] + 1, this.table[k + 2]);
  }

  private entry(i: number): number {
    if (this.generation !== this.scanner.generation) {
      throw new Error('FastaBlock used after the next block was requested; keep block.records() instead');
    }
    return i * 4;
  }
}

/** A block of records parsed by the general (byte-loop) parser: strings already made. */
export class RecordBlock implements FastaBlock {
  readonly length: number;
  constructor(private readonly list: FastaRecord[]) {
    this.length = list.length;
  }
  sequenceLength(i: number): number {
    return this.list[i].sequence.length;
  }
  id(i: number): string {
    return this.list[i].id;
  }
  description(i: number): string {
    return this.list[i].description;
  }
  sequence(i: number): string {
    return this.list[i].sequence;
  }
  record(i: number): FastaRecord {
    return this.list[i];
  }
  records(): FastaRecord[] {
    return this.list;
  }
}

/** Records shorter than this on average are cut from one string per block. */
const SMALL_RECORD = 4096;

/**
 * ASCII bytes as a string ('ascii' = latin1 for these bytes, and Node makes large ones external strings with
 * one copy). The scanner only passes bytes in '!'..'~', space, tab and LF.
 */
function ascii(bytes: Buffer, start: number, end: number | undefined): string {
  return bytes.toString('ascii', start, end);
}
