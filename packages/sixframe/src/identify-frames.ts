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
 * their strings: what a pass that only counts frames and tokens needs (e.g. a progress bar's total), several times
 * faster than `identifyFrames(…).map((f) => f.protein.length)`.
 */
export function stopFreeProteinLengths(sequence: string): number[] {
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
