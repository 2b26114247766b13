// Telling DNA from protein by content: the one table predict's input check and the embed commands use.

// A C G T U, N, and the IUPAC ambiguity codes R Y S W K M B D H V, either case. 256 entries: a byte indexes it.
const NUCLEOTIDE = new Uint8Array(256);
for (const c of 'ACGTUNRYSWKMBDHV') NUCLEOTIDE[c.charCodeAt(0)] = NUCLEOTIDE[c.toLowerCase().charCodeAt(0)] = 1;
// Only A C G T U N: a protein is rarely made of these alone (IUPAC codes such as R, S, K, M, D, H, V are amino acids too).
const PLAIN_NUCLEOTIDE = new Uint8Array(128);
for (const c of 'ACGTUN') PLAIN_NUCLEOTIDE[c.charCodeAt(0)] = PLAIN_NUCLEOTIDE[c.toLowerCase().charCodeAt(0)] = 1;

/** Characters of `sequence` that are not nucleotide codes (ACGTUN or IUPAC, either case). */
export function nonNucleotideCount(sequence: string): number {
  let outside = 0;
  for (let i = 0; i < sequence.length; i++) {
    const c = sequence.charCodeAt(i);
    if (c >= 128 || NUCLEOTIDE[c] === 0) outside++;
  }
  return outside;
}

/** `nonNucleotideCount` of a sequence given as its ASCII bytes `bytes[0, length)` (the counting pass has them). */
export function asciiNonNucleotideCount(bytes: Uint8Array, length: number): number {
  let outside = 0;
  for (let i = 0; i < length; i++) outside += NUCLEOTIDE[bytes[i]] ^ 1;
  return outside;
}

/** Up to `n` distinct characters of `sequence` (upper case) that are not nucleotide codes, for messages. */
export function nonNucleotideExamples(sequence: string, n = 6): string {
  return [...new Set(sequence.toUpperCase().replace(/[ACGTUNRYSWKMBDHV]/g, ''))].slice(0, n).join(', ');
}

/** Characters of `sequence` that are A, C, G, T, U or N (either case). */
export function plainNucleotideCount(sequence: string): number {
  let inside = 0;
  for (let i = 0; i < sequence.length; i++) {
    const c = sequence.charCodeAt(i);
    if (c < 128 && PLAIN_NUCLEOTIDE[c] === 1) inside++;
  }
  return inside;
}

