import { AMINO_ACID_CODE, BASE_INDEX, STOP_CODE } from './codon-table.js';
import { reverseComplement } from './reverse-complement.js';

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
 * Frames are translated with an early exit at the first stop, since most frames of real reads contain one.
 */
export function identifyFrames(id: string, sequence: string): Frame[] {
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
 * input before a run starts). Each base is looked up once (either case; the six frames then read its index), ~3×
 * faster than `identifyFrames(…).map((f) => f.protein.length)`. A sequence with a character beyond ASCII takes
 * identifyFrames' own path: upper-casing such text can change its length (`ß` → `SS`), and with it the frames.
 */
export function stopFreeProteinLengths(sequence: string): number[] {
  const n = sequence.length;
  if (baseScratch.length < n) baseScratch = new Int8Array(n * 2);
  const bases = baseScratch;
  for (let i = 0; i < n; i++) {
    const c = sequence.charCodeAt(i);
    if (c >= 128) return stopFreeProteinLengthsOfText(sequence);
    bases[i] = ANY_CASE_BASE_INDEX[c];
  }
  const lengths: number[] = [];
  for (let f = 0; f < 3; f++) {
    const length = codonsUntilStop(bases, n, f, 3, FORWARD_STOP);
    if (length > 0) lengths.push(length);
  }
  // Reverse frame f reads the reverse complement from position f: its codons are the forward triplets that start
  // at n − 3 − f, n − 6 − f, …, each complemented and read backwards (REVERSE_STOP).
  for (let f = 0; f < 3; f++) {
    const length = codonsUntilStop(bases, n, n - 3 - f, -3, REVERSE_STOP);
    if (length > 0) lengths.push(length);
  }
  return lengths;
}

/** Base indices (0..3 for A, C, G, T in either case; −1 for any other ASCII character). */
const ANY_CASE_BASE_INDEX: Int8Array = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let c = 0; c < 128; c++) table[c] = BASE_INDEX[String.fromCharCode(c).toUpperCase().charCodeAt(0)];
  return table;
})();

/** Forward triplet code (16·b1 + 4·b2 + b3) → 1 where it reads as a stop codon. */
const FORWARD_STOP: Uint8Array = Uint8Array.from({ length: 64 }, (_, code) => (AMINO_ACID_CODE[code] === STOP_CODE ? 1 : 0));
/** Forward triplet code → 1 where its reverse complement reads as a stop codon. */
const REVERSE_STOP: Uint8Array = Uint8Array.from({ length: 64 }, (_, code) =>
  AMINO_ACID_CODE[((3 - (code & 3)) << 4) | ((3 - ((code >> 2) & 3)) << 2) | (3 - (code >> 4))] === STOP_CODE ? 1 : 0,
);

let baseScratch = new Int8Array(512);

/**
 * Codons of the triplets starting at `start`, `start + step`, … (within 0..n−3) up to the first stop (`stops` by
 * triplet code): their number, or −1 at a stop. A triplet with a base other than A/C/G/T is skipped, as the
 * translation skips it.
 */
function codonsUntilStop(bases: Int8Array, n: number, start: number, step: 3 | -3, stops: Uint8Array): number {
  let codons = 0;
  for (let i = start; i >= 0 && i <= n - 3; i += step) {
    const a = bases[i];
    const b = bases[i + 1];
    const c = bases[i + 2];
    if ((a | b | c) < 0) continue;
    if (stops[(a << 4) | (b << 2) | c] === 1) return -1;
    codons++;
  }
  return codons;
}

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
  let out = '';
  // fromCharCode.apply is fastest for short runs; slices keep the argument count well below engine limits.
  for (let i = 0; i < length; i += 8192) {
    out += String.fromCharCode.apply(null, bytes.subarray(i, Math.min(length, i + 8192)) as unknown as number[]);
  }
  return out;
}
