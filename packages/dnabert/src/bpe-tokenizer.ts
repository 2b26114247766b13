import { readFile } from 'node:fs/promises';
import { MergeQueue } from './merge-queue.js';
import { PairTable } from './pair-table.js';
import { parseTokenizerJson, type BpeTokenizerSpec } from './tokenizer-json.js';

// A rank-based BPE that reproduces Hugging Face `tokenizers` (Rust `Word::merge_all`) for the
// DNABERT-2 / DNABERT-S tokenizer: always apply the lowest-rank merge present, leftmost first,
// with the same stale-entry check as the Rust code. Rust keeps a binary heap of (rank, position);
// here the pending merges wait in a bucket per rank (merge-queue.ts), taken in that same order,
// and a pair's rank is one array read (pair-table.ts): 2.9-3.6x faster than the heap
// (docs/benchmarks/dnabert-cpu.md#tokenizer-speed-on-genome-windows). Written here instead of
// using @huggingface/tokenizers because that library (which gives the same ids) was ~8x slower
// than even the heap. All scratch buffers are reused between calls.

const NOT_IN_VOCAB = -1;
const WHITESPACE = -2;

export class BpeTokenizer {
  readonly vocabSize: number;
  readonly unkId: number;
  readonly padId: number;
  readonly prefixIds: readonly number[];
  readonly suffixIds: readonly number[];
  private readonly idToToken: string[];
  private readonly asciiIds = new Int32Array(128).fill(NOT_IN_VOCAB);
  private readonly otherCharIds = new Map<number, number>();
  private readonly pairs: PairTable;
  private readonly queue: MergeQueue;
  private readonly addedTokens: Map<string, number>;
  private readonly addedTokenPattern: RegExp | null;
  private readonly addedTokenFirstChars: string[];
  // Scratch, grown on demand: symbol id, next/prev symbol index (-1 = run boundary), alive flag.
  private ids = new Int32Array(1024);
  private next = new Int32Array(1024);
  private prev = new Int32Array(1024);
  private alive = new Uint8Array(1024);

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
    this.pairs = new PairTable(this.vocabSize, spec.merges.map(([left, right], rank) => {
      const l = spec.vocab.get(left);
      const r = spec.vocab.get(right);
      const m = spec.vocab.get(left + right);
      if (l === undefined || r === undefined || m === undefined) {
        throw new Error(`tokenizer.json: merge "${left} ${right}" (rank ${rank}) uses a token missing from the vocab`);
      }
      return { left: l, right: r, merged: m };
    }));
    this.refuseMergesOutOfOrder();
    this.queue = new MergeQueue(spec.merges.length);
    const contents = [...spec.addedTokens.keys()].sort((a, b) => b.length - a.length);
    this.addedTokenPattern = contents.length
      ? new RegExp(contents.map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g')
      : null;
    this.addedTokenFirstChars = [...new Set(contents.map((c) => c[0]))];
  }

  /** Loads a Hugging Face `tokenizer.json` (its stored padding/truncation are ignored). */
  static async fromFile(path: string): Promise<BpeTokenizer> {
    const text = await readFile(path, 'utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new Error(`${path}: not valid JSON (${(err as Error).message})`);
    }
    return new BpeTokenizer(parseTokenizerJson(json, path));
  }

  /**
   * The merge queue takes ranks lowest first and relies on merges in training order: each after every merge that makes
   * one of its tokens, so that a merge's result only pairs into higher ranks. BPE training lists a merge after the one
   * that makes its tokens (DNABERT-2/-S's 4,087 are in order); refused here is a list where a token is made (again) by
   * a merge after one that uses it. A pair listed again is never applied (its first rank wins), as in Hugging Face.
   */
  private refuseMergesOutOfOrder(): void {
    const { left, right, merged } = this.pairs;
    const lastMaker = new Int32Array(this.vocabSize).fill(-1);
    const applied = (rank: number) => this.pairs.rankOf(left[rank], right[rank]) === rank;
    for (let rank = 0; rank < merged.length; rank++) if (applied(rank)) lastMaker[merged[rank]] = rank;
    for (let rank = 0; rank < merged.length; rank++) {
      if (!applied(rank)) continue;
      for (const token of [left[rank], right[rank]]) {
        if (lastMaker[token] > rank) {
          const pair = `${this.idToToken[left[rank]]} ${this.idToToken[right[rank]]}`;
          throw new Error(`tokenizer.json: merge "${pair}" (rank ${rank}) uses "${this.idToToken[token]}", which the later merge of rank ${lastMaker[token]} makes (merges out of training order are not supported)`);
        }
      }
    }
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
    // 2. Queue every adjacent mergeable pair.
    const { pairs, queue } = this;
    queue.reset(3 * n); // n - 1 pairs, then at most two new pairs per merge
    for (let i = 0; i < n; i++) {
      if (next[i] < 0) continue;
      const rank = pairs.rankOf(ids[i], ids[next[i]]);
      if (rank >= 0) queue.push(rank, i);
    }
    // 3. Merge lowest rank first, leftmost first; skip entries made stale by earlier merges.
    for (let count = queue.take(); count > 0; count = queue.take()) {
      const { rank, positions } = queue;
      const left = pairs.left[rank];
      const right = pairs.right[rank];
      const merged = pairs.merged[rank];
      for (let k = 0; k < count; k++) {
        const pos = positions[k];
        const other = next[pos];
        if (!alive[pos] || other < 0 || ids[pos] !== left || ids[other] !== right) continue;
        ids[pos] = merged;
        alive[other] = 0;
        const after = next[other];
        next[pos] = after;
        if (after >= 0) prev[after] = pos;
        const before = prev[pos];
        if (before >= 0) {
          const r = pairs.rankOf(ids[before], merged);
          if (r >= 0) queue.push(r, before);
        }
        if (after >= 0) {
          const r = pairs.rankOf(merged, ids[after]);
          if (r >= 0) queue.push(r, pos);
        }
      }
    }
    for (let i = 0; i < n; i++) if (alive[i]) out.push(ids[i]);
  }
}
