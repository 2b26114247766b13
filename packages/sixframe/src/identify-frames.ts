import { AMINO_ACID_CODE, BASE_INDEX, STOP_CODE } from './codon-table.js';
import { COMPLEMENT_CODE, reverseComplement } from './reverse-complement.js';

/** One kept reading frame: id `{chunkId}F1..F3|R1..R3`, the nucleotide slice and its translation. */
export interface Frame {
  id: string;
  nucleotide: string;
  protein: string;
}

const FRAME_SUFFIXES = ['F1', 'F2', 'F3', 'R1', 'R2', 'R3'] as const;

// Scratch space for one frame's amino acids; grown on demand, reused across calls (hot path).
let scratch = new Uint8Array(512);

/**
 * Six-frame selection exactly as VirNucPro prediction mode (`process_record` + `identify_seq` + the writer):
 * - the sequence is uppercased first;
 * - every frame whose translation contains no stop is kept (no ATG or length rule), in the order
 *   F1, F2, F3, R1, R2, R3; frames whose translation is empty are not returned (the writer skips them);
 * - the nucleotide kept for frame `k` (1..3 within its strand) is `strand[k−1 : k + 3·len(protein)]` —
 *   one base more than the codons (clipped at the end), and misaligned with the protein when ambiguous codons
 *   were dropped — where the reverse strand is the reverse complement that leaves IUPAC letters as they are.
 *
 * ASCII text (every real input) is read as bytes: one pass finds the stop-free frames (most frames of a read have a
 * stop), and only those are translated and cut. Text beyond ASCII is upper-cased and translated as a string (its
 * upper case can be longer: `ß` → `SS`).
 */
export function identifyFrames(id: string, sequence: string): Frame[] {
  const n = sequence.length;
  if (textScratch.length < n) textScratch = new Uint8Array(n * 2);
  const { read, written } = ENCODER.encodeInto(sequence, textScratch);
  // Every character read and one byte each: the text is ASCII.
  if (read !== n || written !== n) return identifyFramesOfText(id, sequence);
  const bytes = textScratch;
  countStopFreeCodons(bytes, 0, n);
  const maxProtein = Math.max(0, Math.floor(n / 3));
  if (scratch.length < maxProtein) scratch = new Uint8Array(maxProtein * 2);
  const frames: Frame[] = [];
  let upper: string | undefined;
  for (let f = 0; f < 6; f++) {
    const codons = frameCodons[f];
    if (codons === 0) continue;
    const forward = f < 3;
    const offset = forward ? f : f - 3;
    const protein = decodeAscii(scratch, forward ? translateAsciiForward(bytes, n, offset) : translateAsciiReverse(bytes, n, offset));
    // One base more than the codons, clipped at the end (see above).
    const end = Math.min(n, offset + 1 + 3 * codons);
    const nucleotide = forward ? (upper ??= sequence.toUpperCase()).slice(offset, end) : reverseComplementAscii(bytes, n, offset, end);
    frames.push({ id: id + FRAME_SUFFIXES[f], nucleotide, protein });
  }
  return frames;
}

/** identifyFrames on text beyond ASCII: upper-cased as a string, each frame translated from it. */
function identifyFramesOfText(id: string, sequence: string): Frame[] {
  const upper = sequence.toUpperCase();
  const n = upper.length;
  const maxProtein = Math.max(0, Math.floor(n / 3));
  if (scratch.length < maxProtein) scratch = new Uint8Array(maxProtein * 2);

  const frames: Frame[] = [];
  let reverse: string | undefined;
  for (let f = 0; f < 6; f++) {
    const length = translateUntilStop(upper, f);
    if (length <= 0) continue; // −1: a stop; 0: nothing translatable
    const forward = f < 3;
    const offset = forward ? f : f - 3;
    const protein = decodeAscii(scratch, length);
    const strand = forward ? upper : (reverse ??= reverseComplement(upper));
    frames.push({ id: id + FRAME_SUFFIXES[f], nucleotide: strand.slice(offset, offset + 1 + 3 * length), protein });
  }
  return frames;
}

/**
 * The protein lengths of the frames `identifyFrames` keeps for `sequence`, in the same order, without building
 * their strings: what a pass that only counts frames and tokens needs (e.g. a progress bar's total, over the whole
 * input before a run starts). ASCII text is read as bytes, in one pass (`asciiStopFreeProteinLengths`). A sequence with a character beyond ASCII takes identifyFrames'
 * own path: upper-casing such text can change its length (`ß` → `SS`), and with it the frames.
 */
export function stopFreeProteinLengths(sequence: string): number[] {
  const n = sequence.length;
  if (textScratch.length < n) textScratch = new Uint8Array(n * 2);
  const { read, written } = ENCODER.encodeInto(sequence, textScratch);
  // Every character read and one byte each: the text is ASCII.
  if (read !== n || written !== n) return stopFreeProteinLengthsOfText(sequence);
  return asciiStopFreeProteinLengths(textScratch, 0, n);
}

/**
 * `stopFreeProteinLengths` of the ASCII text `bytes[start, end)` (e.g. one chunk of a record already encoded, so a
 * counting pass reads each record's bytes without a string per chunk). Bytes of 128 and up are not bases; the caller
 * makes sure they are not there (text beyond ASCII takes `stopFreeProteinLengths`).
 *
 * One pass over the bases instead of six frame by frame: a frame is kept with all its codons or dropped at any stop,
 * so only which triplets it holds matters, not their order. Forward frame f holds the triplets starting at
 * `start + f + 3k`; reverse frame f reads the reverse complement from f, i.e. the forward triplets starting at
 * `end − 3 − f − 3k`, each complemented and read backwards (REVERSE_STOP). Both are one of the three classes of
 * triplet starts mod 3: the pass counts each class's A/C/G/T triplets and notes whether one is a stop either way.
 */
export function asciiStopFreeProteinLengths(bytes: Uint8Array, start: number, end: number): number[] {
  countStopFreeCodons(bytes, start, end);
  const lengths: number[] = [];
  for (let f = 0; f < 6; f++) if (frameCodons[f] > 0) lengths.push(frameCodons[f]);
  return lengths;
}

/** Per frame F1, F2, F3, R1, R2, R3: its codons if it is kept, else 0 (countStopFreeCodons' answer; reused). */
const frameCodons = new Int32Array(6);

/** Fills `frameCodons` for the ASCII text `bytes[start, end)` in one pass (asciiStopFreeProteinLengths says how). */
function countStopFreeCodons(bytes: Uint8Array, start: number, end: number): void {
  // Triplet classes by where they start: class c holds the triplets starting at start + c + 3k. The byte at
  // start + j ends the triplet of class (j + 1) mod 3; the loop takes three bytes a turn, one of each class.
  // A triplet's kind (TRIPLET_KIND) is 0 or CODON | its stops, so `kind >> 2` counts it as a codon.
  let codons0 = 0, codons1 = 0, codons2 = 0;
  let kinds0 = 0, kinds1 = 0, kinds2 = 0;
  let window = NOT_A_TRIPLET; // the last three bytes' symbols, 3 bits each
  let i = start;
  for (; i + 2 < end; i += 3) {
    window = ((window << 3) | BASE_SYMBOL[bytes[i]]) & 511;
    let kind = TRIPLET_KIND[window];
    codons1 += kind >> 2;
    kinds1 |= kind;
    window = ((window << 3) | BASE_SYMBOL[bytes[i + 1]]) & 511;
    kind = TRIPLET_KIND[window];
    codons2 += kind >> 2;
    kinds2 |= kind;
    window = ((window << 3) | BASE_SYMBOL[bytes[i + 2]]) & 511;
    kind = TRIPLET_KIND[window];
    codons0 += kind >> 2;
    kinds0 |= kind;
  }
  if (i < end) {
    window = ((window << 3) | BASE_SYMBOL[bytes[i]]) & 511;
    codons1 += TRIPLET_KIND[window] >> 2;
    kinds1 |= TRIPLET_KIND[window];
  }
  if (i + 1 < end) {
    window = ((window << 3) | BASE_SYMBOL[bytes[i + 1]]) & 511;
    codons2 += TRIPLET_KIND[window] >> 2;
    kinds2 |= TRIPLET_KIND[window];
  }
  frameCodons[0] = kept(codons0, kinds0 & FORWARD_STOP);
  frameCodons[1] = kept(codons1, kinds1 & FORWARD_STOP);
  frameCodons[2] = kept(codons2, kinds2 & FORWARD_STOP);
  // Reverse frame f: the triplets starting at end − 3 − f − 3k, of class (end − start − 3 − f) mod 3.
  for (let f = 0; f < 3; f++) {
    const c = (end - start - 3 - f) % 3;
    frameCodons[3 + f] = f > end - start - 3 ? 0 : kept(c === 0 ? codons0 : c === 1 ? codons1 : codons2, (c === 0 ? kinds0 : c === 1 ? kinds1 : kinds2) & REVERSE_STOP);
  }
}

/** A frame of `codons` is kept unless it has a stop, or nothing to translate: its codons, or 0. */
function kept(codons: number, stop: number): number {
  return stop === 0 ? codons : 0;
}

/** Forward frame `offset` of the ASCII `bytes[0, n)` into `scratch` (a frame countStopFreeCodons kept): its length. */
function translateAsciiForward(bytes: Uint8Array, n: number, offset: number): number {
  let p = 0;
  for (let i = offset; i < n - 2; i += 3) {
    const a = BASE_SYMBOL[bytes[i]];
    const b = BASE_SYMBOL[bytes[i + 1]];
    const c = BASE_SYMBOL[bytes[i + 2]];
    if ((a | b | c) > 3) continue; // a symbol of 4 is not a base: the codon translates to nothing
    scratch[p++] = AMINO_ACID_CODE[(a << 4) | (b << 2) | c];
  }
  return p;
}

/** The same on the reverse complement, read from the end of `bytes` (complement index = 3 − index). */
function translateAsciiReverse(bytes: Uint8Array, n: number, offset: number): number {
  let p = 0;
  for (let j = offset; j < n - 2; j += 3) {
    const a = BASE_SYMBOL[bytes[n - 1 - j]];
    const b = BASE_SYMBOL[bytes[n - 2 - j]];
    const c = BASE_SYMBOL[bytes[n - 3 - j]];
    if ((a | b | c) > 3) continue;
    scratch[p++] = AMINO_ACID_CODE[((3 - a) << 4) | ((3 - b) << 2) | (3 - c)];
  }
  return p;
}

/** Positions [from, to) of the reverse complement of the upper-cased ASCII `bytes[0, n)`, as a string. */
function reverseComplementAscii(bytes: Uint8Array, n: number, from: number, to: number): string {
  if (strandScratch.length < to - from) strandScratch = new Uint8Array((to - from) * 2);
  for (let k = from; k < to; k++) strandScratch[k - from] = COMPLEMENT_OF_UPPER[bytes[n - 1 - k]];
  return decodeAscii(strandScratch, to - from);
}

let strandScratch = new Uint8Array(512);

/** ASCII byte → the complement of its upper case (reverseComplement's rule, applied after the upper-casing). */
const COMPLEMENT_OF_UPPER: Uint8Array = (() => {
  const table = Uint8Array.from({ length: 256 }, (_, c) => c);
  for (let c = 0; c < 128; c++) {
    const upper = String.fromCharCode(c).toUpperCase();
    table[c] = COMPLEMENT_CODE[upper.length === 1 ? upper.charCodeAt(0) : c];
  }
  return table;
})();

const ENCODER = new TextEncoder();
let textScratch = new Uint8Array(512);

/** Byte → symbol: 0..3 for A, C, G, T in either case; 4 for any other byte. */
const BASE_SYMBOL: Uint8Array = (() => {
  const table = new Uint8Array(256).fill(4);
  for (let c = 0; c < 128; c++) {
    const base = BASE_INDEX[String.fromCharCode(c).toUpperCase().charCodeAt(0)];
    if (base >= 0) table[c] = base;
  }
  return table;
})();

const FORWARD_STOP = 1;
const REVERSE_STOP = 2;
const CODON = 4;
/** Before the first byte: symbols that are not bases, so the first two windows are no triplet. */
const NOT_A_TRIPLET = 511;

/**
 * Three symbols (8² · s1 + 8 · s2 + s3) → CODON if all are bases, | FORWARD_STOP if they read as a stop, |
 * REVERSE_STOP if their reverse complement does; 0 if one is not a base.
 */
const TRIPLET_KIND: Uint8Array = (() => {
  const table = new Uint8Array(512);
  for (let a = 0; a < 4; a++) {
    for (let b = 0; b < 4; b++) {
      for (let c = 0; c < 4; c++) {
        const forward = AMINO_ACID_CODE[(a << 4) | (b << 2) | c] === STOP_CODE;
        const reverse = AMINO_ACID_CODE[((3 - c) << 4) | ((3 - b) << 2) | (3 - a)] === STOP_CODE;
        table[(a << 6) | (b << 3) | c] = CODON | (forward ? FORWARD_STOP : 0) | (reverse ? REVERSE_STOP : 0);
      }
    }
  }
  return table;
})();

/** stopFreeProteinLengths by translating the upper-cased text as identifyFrames does (text beyond ASCII). */
function stopFreeProteinLengthsOfText(sequence: string): number[] {
  const upper = sequence.toUpperCase();
  const maxProtein = Math.max(0, Math.floor(upper.length / 3));
  if (scratch.length < maxProtein) scratch = new Uint8Array(maxProtein * 2);
  const lengths: number[] = [];
  for (let f = 0; f < 6; f++) {
    const length = translateUntilStop(upper, f);
    if (length > 0) lengths.push(length);
  }
  return lengths;
}

/** Frame `f` (0–2 forward, 3–5 reverse) of the uppercased `s` into `scratch`: its protein length, or −1 at a stop. */
function translateUntilStop(s: string, f: number): number {
  return f < 3 ? translateForwardUntilStop(s, f) : translateReverseUntilStop(s, f - 3);
}

/** Translates `s` from `offset` into `scratch`; returns the protein length, or −1 at the first stop. */
function translateForwardUntilStop(s: string, offset: number): number {
  let p = 0;
  for (let i = offset; i < s.length - 2; i += 3) {
    const a = BASE_INDEX[s.charCodeAt(i)];
    const b = BASE_INDEX[s.charCodeAt(i + 1)];
    const c = BASE_INDEX[s.charCodeAt(i + 2)];
    if ((a | b | c) < 0) continue;
    const aa = AMINO_ACID_CODE[(a << 4) | (b << 2) | c];
    if (aa === STOP_CODE) return -1;
    scratch[p++] = aa;
  }
  return p;
}

/**
 * The same on the reverse complement without building it: position `j` of the reverse complement is the
 * complement of `s[n−1−j]`, and for A/C/G/T (indices 0..3) the complement's index is `3 − index`.
 */
function translateReverseUntilStop(s: string, offset: number): number {
  const n = s.length;
  let p = 0;
  for (let j = offset; j < n - 2; j += 3) {
    const a = BASE_INDEX[s.charCodeAt(n - 1 - j)];
    const b = BASE_INDEX[s.charCodeAt(n - 2 - j)];
    const c = BASE_INDEX[s.charCodeAt(n - 3 - j)];
    if ((a | b | c) < 0) continue;
    const aa = AMINO_ACID_CODE[((3 - a) << 4) | ((3 - b) << 2) | (3 - c)];
    if (aa === STOP_CODE) return -1;
    scratch[p++] = aa;
  }
  return p;
}

function decodeAscii(bytes: Uint8Array, length: number): string {
  // A TextDecoder call costs 2–4× less than String.fromCharCode.apply on a 50–150-byte slice (Node 20); the bytes are
  // ASCII here, which latin1 (windows-1252) decodes as themselves.
  return LATIN1.decode(bytes.subarray(0, length));
}

const LATIN1 = new TextDecoder('latin1');
