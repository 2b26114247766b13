// The BPE tokenizer of 08a4edc (bpe-tokenizer.ts and pair-table.ts: a binary heap of float64 keys rank * 2^32 +
// position, an open-addressing pair table), kept unchanged as the oracle that bpe-tokenizer.test.ts checks the
// current one against on random inputs. Not used by the package.
import { readFile } from 'node:fs/promises';
import { parseTokenizerJson, type BpeTokenizerSpec } from '../src/tokenizer-json.js';

// A rank-based BPE that reproduces Hugging Face `tokenizers` (Rust `Word::merge_all`) for the
// DNABERT-2 / DNABERT-S tokenizer: always apply the lowest-rank merge present, leftmost first,
// via a binary heap over symbol positions, with the same stale-entry check as the Rust code.
// Written here instead of using @huggingface/tokenizers because that library (which gives the
// same ids) is ~10x slower on 500-bp inputs, and the main process tokenizes every chunk for
// packing (see docs/benchmarks/dnabert.md). All scratch buffers are reused between calls.

const NOT_IN_VOCAB = -1;
const WHITESPACE = -2;
/** Heap keys are rank * 2^32 + position: exact in a float64 and ordered like Rust's (rank, pos). */
const POS_SPAN = 2 ** 32;

export class ReferenceBpeTokenizer {
  readonly vocabSize: number;
  readonly unkId: number;
  readonly padId: number;
  readonly prefixIds: readonly number[];
  readonly suffixIds: readonly number[];
  private readonly idToToken: string[];
  private readonly asciiIds = new Int32Array(128).fill(NOT_IN_VOCAB);
  private readonly otherCharIds = new Map<number, number>();
  private readonly pairs: PairTable;
  private readonly addedTokens: Map<string, number>;
  private readonly addedTokenPattern: RegExp | null;
  private readonly addedTokenFirstChars: string[];
  // Scratch, grown on demand: symbol id, next/prev symbol index (-1 = run boundary), alive flag.
  private ids = new Int32Array(1024);
  private next = new Int32Array(1024);
  private prev = new Int32Array(1024);
  private alive = new Uint8Array(1024);
  private heap = new Float64Array(2048);

  constructor(spec: BpeTokenizerSpec) {
    this.unkId = spec.unkId;
    this.padId = spec.padId;
    this.prefixIds = spec.prefixIds;
    this.suffixIds = spec.suffixIds;
    this.addedTokens = spec.addedTokens;
    let maxId = 0;
    for (const id of spec.vocab.values()) maxId = Math.max(maxId, id);
    this.vocabSize = maxId + 1;
    this.idToToken = new Array<string>(this.vocabSize).fill('');
    for (const [token, id] of spec.vocab) this.idToToken[id] = token;
    for (let c = 0; c < 128; c++) if (/\s/.test(String.fromCharCode(c))) this.asciiIds[c] = WHITESPACE;
    for (const [token, id] of spec.vocab) {
      if (spec.addedTokens.has(token)) continue;
      const cps = [...token];
      if (cps.length !== 1) continue;
      const cp = cps[0].codePointAt(0)!;
      if (cp < 128) this.asciiIds[cp] = id;
      else this.otherCharIds.set(cp, id);
    }
    this.pairs = new PairTable(this.vocabSize, spec.merges.length);
    spec.merges.forEach(([left, right], rank) => {
      const l = spec.vocab.get(left);
      const r = spec.vocab.get(right);
      const m = spec.vocab.get(left + right);
      if (l === undefined || r === undefined || m === undefined) {
        throw new Error(`tokenizer.json: merge "${left} ${right}" (rank ${rank}) uses a token missing from the vocab`);
      }
      this.pairs.add(l, r, rank, m);
    });
    const contents = [...spec.addedTokens.keys()].sort((a, b) => b.length - a.length);
    this.addedTokenPattern = contents.length
      ? new RegExp(contents.map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g')
      : null;
    this.addedTokenFirstChars = [...new Set(contents.map((c) => c[0]))];
  }

  /** Loads a Hugging Face `tokenizer.json` (its stored padding/truncation are ignored). */
  static async fromFile(path: string): Promise<ReferenceBpeTokenizer> {
    const text = await readFile(path, 'utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new Error(`${path}: not valid JSON (${(err as Error).message})`);
    }
    return new ReferenceBpeTokenizer(parseTokenizerJson(json, path));
  }

  /** Token ids of `sequence` as given (no case change), wrapped in the template's [CLS] … [SEP]. */
  encode(sequence: string): Int32Array {
    const body: number[] = [];
    this.encodeBodyInto(sequence, body);
    const out = new Int32Array(this.prefixIds.length + body.length + this.suffixIds.length);
    out.set(this.prefixIds, 0);
    out.set(body, this.prefixIds.length);
    out.set(this.suffixIds, this.prefixIds.length + body.length);
    return out;
  }

  /** Number of ids `encode(sequence)` returns, including [CLS] and [SEP]. */
  tokenCount(sequence: string): number {
    return this.encode(sequence).length;
  }

  /** The token strings of ids (for debugging and tests). */
  idsToTokens(ids: ArrayLike<number>): string[] {
    return Array.from(ids, (id) => this.idToToken[id] ?? '');
  }

  private encodeBodyInto(sequence: string, out: number[]): void {
    if (this.addedTokenPattern && this.addedTokenFirstChars.some((c) => sequence.includes(c))) {
      // HF splits the raw input on added (special) tokens before pre-tokenization.
      let last = 0;
      for (const m of sequence.matchAll(this.addedTokenPattern)) {
        this.bpe(sequence, last, m.index!, out);
        out.push(this.addedTokens.get(m[0])!);
        last = m.index! + m[0].length;
      }
      this.bpe(sequence, last, sequence.length, out);
      return;
    }
    this.bpe(sequence, 0, sequence.length, out);
  }

  private grow(n: number): void {
    if (this.ids.length >= n) return;
    const size = Math.max(n, this.ids.length * 2);
    this.ids = new Int32Array(size);
    this.next = new Int32Array(size);
    this.prev = new Int32Array(size);
    this.alive = new Uint8Array(size);
    this.heap = new Float64Array(size * 2);
  }

  /** BPE over sequence[start, end): runs of vocab characters merge; other characters are [UNK]. */
  private bpe(sequence: string, start: number, end: number, out: number[]): void {
    this.grow(end - start + 1);
    const { ids, next, prev, alive, asciiIds } = this;
    // 1. Characters → symbols. Whitespace and [UNK] end a run (no merge crosses them).
    let n = 0;
    let runOpen = false;
    for (let i = start; i < end; i++) {
      let code = sequence.charCodeAt(i);
      let id: number;
      if (code < 128) id = asciiIds[code];
      else {
        code = sequence.codePointAt(i)!;
        if (code > 0xffff) i++;
        id = /\s/u.test(String.fromCodePoint(code)) ? WHITESPACE : (this.otherCharIds.get(code) ?? NOT_IN_VOCAB);
      }
      if (id === WHITESPACE) {
        runOpen = false;
        continue;
      }
      const known = id !== NOT_IN_VOCAB;
      ids[n] = known ? id : this.unkId;
      alive[n] = 1;
      prev[n] = runOpen ? n - 1 : -1;
      if (runOpen) next[n - 1] = n;
      next[n] = -1;
      runOpen = known;
      n++;
    }
    // 2. Seed the heap with every adjacent mergeable pair.
    let heapSize = 0;
    for (let i = 0; i < n; i++) {
      if (next[i] < 0) continue;
      const slot = this.pairs.find(ids[i], ids[next[i]]);
      if (slot >= 0) heapSize = this.push(heapSize, this.pairs.rankAt(slot) * POS_SPAN + i);
    }
    // 3. Merge lowest (rank, position) first; skip entries made stale by earlier merges.
    while (heapSize > 0) {
      const key = this.heap[0];
      heapSize = this.pop(heapSize);
      const pos = key % POS_SPAN;
      const right = next[pos];
      if (!alive[pos] || right < 0) continue;
      const rank = (key - pos) / POS_SPAN;
      const slot = this.pairs.find(ids[pos], ids[right]);
      if (slot < 0 || this.pairs.rankAt(slot) !== rank) continue;
      ids[pos] = this.pairs.mergedAt(slot);
      alive[right] = 0;
      const after = next[right];
      next[pos] = after;
      if (after >= 0) prev[after] = pos;
      const before = prev[pos];
      if (before >= 0) {
        const s = this.pairs.find(ids[before], ids[pos]);
        if (s >= 0) heapSize = this.push(heapSize, this.pairs.rankAt(s) * POS_SPAN + before);
      }
      if (after >= 0) {
        const s = this.pairs.find(ids[pos], ids[after]);
        if (s >= 0) heapSize = this.push(heapSize, this.pairs.rankAt(s) * POS_SPAN + pos);
      }
    }
    for (let i = 0; i < n; i++) if (alive[i]) out.push(ids[i]);
  }

  private push(size: number, key: number): number {
    if (size >= this.heap.length) {
      const bigger = new Float64Array(this.heap.length * 2);
      bigger.set(this.heap);
      this.heap = bigger;
    }
    const heap = this.heap;
    let i = size;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent] <= key) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = key;
    return size + 1;
  }

  private pop(size: number): number {
    const heap = this.heap;
    const last = heap[--size];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && heap[child + 1] < heap[child]) child++;
      if (heap[child] >= last) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = last;
    return size;
  }
}

// Open-addressing hash from a (left id, right id) pair to its merge rank and merged id.
// A plain Map<number, …> works too but is several times slower in the BPE inner loop.

const EMPTY = -1;

class PairTable {
  private readonly keys: Int32Array;
  private readonly ranks: Int32Array;
  private readonly merged: Int32Array;
  private readonly mask: number;

  constructor(
    private readonly vocabSize: number,
    capacityHint: number,
  ) {
    let size = 16;
    while (size < capacityHint * 2) size *= 2;
    this.keys = new Int32Array(size).fill(EMPTY);
    this.ranks = new Int32Array(size);
    this.merged = new Int32Array(size);
    this.mask = size - 1;
  }

  private slot(key: number): number {
    // Fibonacci hashing spreads the dense (left*V + right) keys over the table.
    let i = Math.imul(key, 0x9e3779b1) >>> 0;
    i &= this.mask;
    while (this.keys[i] !== EMPTY && this.keys[i] !== key) i = (i + 1) & this.mask;
    return i;
  }

  /** Adds a merge unless the pair already has one (the first, lowest rank wins, as in HF). */
  add(left: number, right: number, rank: number, mergedId: number): void {
    const key = left * this.vocabSize + right;
    const i = this.slot(key);
    if (this.keys[i] === key) return;
    this.keys[i] = key;
    this.ranks[i] = rank;
    this.merged[i] = mergedId;
  }

  /** Slot index of the pair, or -1 when the pair has no merge. */
  find(left: number, right: number): number {
    const key = left * this.vocabSize + right;
    const i = this.slot(key);
    return this.keys[i] === key ? i : -1;
  }

  rankAt(slot: number): number {
    return this.ranks[slot];
  }

  mergedAt(slot: number): number {
    return this.merged[slot];
  }
}
