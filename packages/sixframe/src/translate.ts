import { AMINO_ACID_CODE, BASE_INDEX } from './codon-table.js';
import { reverseComplement } from './reverse-complement.js';

/**
 * One reading frame, exactly as VirNucPro's `translate_frame`:
 * `''.join(table.get(s[i:i+3], '') for i in range(offset, len(s) - 2, 3))`.
 * Codons that are not uppercase ACGT triplets are silently dropped (no `X`), stops are `'*'`.
 */
export function translateFrame(sequence: string, offset: number): string {
  let protein = '';
  for (let i = offset; i < sequence.length - 2; i += 3) {
    const a = BASE_INDEX[sequence.charCodeAt(i)];
    const b = BASE_INDEX[sequence.charCodeAt(i + 1)];
    const c = BASE_INDEX[sequence.charCodeAt(i + 2)];
    if ((a | b | c) < 0) continue;
    protein += String.fromCharCode(AMINO_ACID_CODE[(a << 4) | (b << 2) | c]);
  }
  return protein;
}

/**
 * The six translations VirNucPro's `translate_dna` returns: forward offsets 0, 1, 2 then reverse-complement
 * offsets 0, 1, 2. The input is used as given (the original uppercases before calling it).
 */
export function translateSixFrames(sequence: string): string[] {
  const reverse = reverseComplement(sequence);
  return [0, 1, 2].map((f) => translateFrame(sequence, f)).concat([0, 1, 2].map((f) => translateFrame(reverse, f)));
}
