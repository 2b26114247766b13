import { FASTA_SCAN_WASM_BASE64 } from './wasm/fasta-scan-wasm.js';

// The few WebAssembly JS API types used here (this package compiles without the DOM lib).
interface WasmGlobal {
  value: number;
}
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** The WebAssembly scanner's exports (assembly/fasta-scan.ts); bool globals read as 0/1. */
interface ScanExports {
  memory: WasmMemory;
  scan(start: number, end: number, final: boolean): number;
  squeeze(start: number, end: number, out: number): number;
  inHeader: WasmGlobal;
  recordOpen: WasmGlobal;
  recordStart: WasmGlobal;
  recordLine: WasmGlobal;
  headerEnd: WasmGlobal;
  lines: WasmGlobal;
  tablePtr: WasmGlobal;
  tableCount: WasmGlobal;
  stop: WasmGlobal;
}

let compiled: object | undefined;
function scanModule(): object {
  return (compiled ??= new wasm.Module(Buffer.from(FASTA_SCAN_WASM_BASE64, 'base64')));
}

const PAGE = 65536;
const TABLE_AT = PAGE;
/** Bytes the kernel may read past the end of the data, and write past a squeeze's end. */
const SLACK = 64;
const roundUp = (n: number, to: number) => Math.ceil(n / to) * to;

/** Where scan() stopped: 'done' = all bytes taken; 'bail' = a byte the general parser must handle. */
export type ScanStatus = 'done' | 'bail';

/**
 * Owns one instance of the WebAssembly scanner and the input window in its memory:
 *
 *   [table: 16 bytes per record] [input: keep .. filled (+ reads in flight)] [scratch for squeeze]
 *
 * Raw bytes stay in place from the open record's '>' on, so a record that spans reads is one contiguous
 * region. When the window is full it is compacted (the open record moved to the front) or grown; that
 * only happens while no block is out and no read is in flight, because blocks and reads address this
 * memory.
 */
export class FastaScanner {
  private readonly k: ScanExports;
  private readonly chunkSize: number;
  private readonly tableCap: number;
  private readonly inputAt: number;
  private capacity: number;
  private view: Buffer;
  private table: Uint32Array;
  /** Absolute (source) offset of the byte at inputAt. */
  private base = 0;
  /** Raw bytes in [inputAt, filled) are valid; [scanned, filled) are not scanned yet. */
  filled: number;
  private scanned: number;
  /** Incremented by the reader before it changes the window or the table: blocks of an older generation are stale. */
  generation = 0;

  constructor(chunkSize: number) {
    this.k = new wasm.Instance(scanModule(), {}).exports as unknown as ScanExports;
    this.chunkSize = chunkSize;
    this.tableCap = (chunkSize >> 1) + 2;
    this.inputAt = roundUp(TABLE_AT + this.tableCap * 16, PAGE);
    // 8 chunks: room for the reads in flight plus the open record; larger windows cost more first-touch page
    // faults than the compactions they save (docs/benchmarks/fasta.md). Grows for records that do not fit.
    this.capacity = Math.max(8 * chunkSize, 4 << 20);
    this.grow();
    this.k.tablePtr.value = TABLE_AT;
    this.filled = this.scanned = this.inputAt;
    this.view = Buffer.from(this.k.memory.buffer);
    this.table = new Uint32Array(this.k.memory.buffer, TABLE_AT, this.tableCap * 4);
  }

  /** The memory as a Buffer (a fresh view after growth; a Buffer so strings are cut from it without a new view each time). */
  get bytes(): Buffer {
    if (this.view.buffer !== this.k.memory.buffer) this.refreshViews();
    return this.view;
  }

  get records(): Uint32Array {
    if (this.table.buffer !== this.k.memory.buffer) this.refreshViews();
    return this.table;
  }

  /**
   * Makes room for at least one chunk after the filled bytes: moves the open record to the front of the
   * window, or grows it. Call only when no block is out and no read is in flight.
   */
  prepareWindow(): void {
    const keep = this.keepFrom();
    if (this.filled + this.chunkSize > this.inputAt + this.capacity) {
      const length = this.filled - keep;
      if (keep > this.inputAt && length > 0) this.bytes.copyWithin(this.inputAt, keep, this.filled);
      this.shift(keep - this.inputAt);
      if (length + this.chunkSize > this.capacity) {
        this.capacity = 2 * (length + this.chunkSize);
        this.grow();
      }
    }
  }

  /** Where the i-th read after the filled bytes lands (chunkSize bytes), or undefined when the window is full. */
  readTarget(i: number): Uint8Array | undefined {
    const at = this.filled + i * this.chunkSize;
    if (at + this.chunkSize > this.inputAt + this.capacity) return undefined;
    return this.bytes.subarray(at, at + this.chunkSize);
  }

  /** Scans what was read since the last call; `final` when the source is exhausted. */
  scan(final: boolean): ScanStatus {
    const status = this.k.scan(this.scanned, this.filled, final);
    this.scanned = status === 0 ? this.filled : (this.k.stop.value);
    return status === 0 ? 'done' : 'bail';
  }

  /** Records completed since the last call, as [start of '>', header LF, sequence end, sequence length] * count. */
  takeRecords(): { table: Uint32Array; count: number } {
    const count = this.k.tableCount.value;
    this.k.tableCount.value = 0;
    return { table: this.records, count };
  }

  /** Where the general parser takes over after a bail: the open record's '>' (or the first byte). */
  handover(): { bytes: Uint8Array; line: number; byte: number } {
    const from = this.keepFrom();
    const line = this.k.inHeader.value || this.k.recordOpen.value ? (this.k.recordLine.value) : (this.k.lines.value) + 1;
    return { bytes: this.bytes.subarray(from, this.filled), line, byte: this.base + (from - this.inputAt) };
  }

  /** Line and byte the scanner has reached, for error messages raised outside it (gunzip). */
  get position(): { line: number; byte: number } {
    return { line: (this.k.lines.value) + 1, byte: this.base + (this.scanned - this.inputAt) };
  }

  /** True when nothing has been read yet, or the input so far starts with '>'. */
  startsWithHeader(): boolean {
    return this.filled === this.inputAt || this.bytes[this.inputAt] === 0x3e;
  }

  /** The region [start, end) without its LF bytes, in scratch memory valid until the next call. */
  squeeze(start: number, end: number): Buffer {
    const out = this.inputAt + this.capacity + SLACK;
    const stop = this.k.squeeze(start, end, out);
    return this.bytes.subarray(out, stop);
  }

  private keepFrom(): number {
    return this.k.inHeader.value || this.k.recordOpen.value ? (this.k.recordStart.value) : this.scanned;
  }

  /** Moves every address down by `delta` after the window was copied to the front. */
  private shift(delta: number): void {
    if (delta === 0) return;
    this.k.recordStart.value = (this.k.recordStart.value) - delta;
    this.k.headerEnd.value = (this.k.headerEnd.value) - delta;
    this.filled -= delta;
    this.scanned -= delta;
    this.base += delta;
  }

  /** Memory for the table, the input window, its read slack and a scratch area as large as the window. */
  private grow(): void {
    const need = this.inputAt + 2 * (this.capacity + SLACK) + SLACK;
    const pages = Math.ceil(need / PAGE) - this.k.memory.buffer.byteLength / PAGE;
    if (pages > 0) this.k.memory.grow(pages);
  }

  private refreshViews(): void {
    this.view = Buffer.from(this.k.memory.buffer);
    this.table = new Uint32Array(this.k.memory.buffer, TABLE_AT, this.tableCap * 4);
  }
}
