// The standard genetic code exactly as VirNucPro spells it: 64 uppercase ACGT codons, stops as '*'.
// Any other codon (N, IUPAC, lower case, gaps, …) is not in the table and translates to nothing.

const BASES = 'ACGT';
// Amino acids in codon order AAA, AAC, AAG, AAT, ACA, … (first base slowest), as in the NCBI table 1 string.
const AMINO_ACIDS = 'KNKNTTTTRSRSIIMIQHQHPPPPRRRRLLLLEDEDAAAAGGGGVVVV*Y*YSSSS*CWCLFLF';

/** Standard codon table as a plain object (`'ATG' → 'M'`), for reference and tests. */
export const CODON_TABLE: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(
    Array.from({ length: 64 }, (_, i) => [BASES[i >> 4] + BASES[(i >> 2) & 3] + BASES[i & 3], AMINO_ACIDS[i]]),
  ),
);

/** UTF-16 code unit → base index 0..3 for uppercase A, C, G, T; −1 for everything else. */
export const BASE_INDEX: Int8Array = (() => {
  const table = new Int8Array(65536).fill(-1);
  for (let i = 0; i < 4; i++) table[BASES.charCodeAt(i)] = i;
  return table;
})();

/** Codon index (16·b1 + 4·b2 + b3) → amino-acid character code. */
export const AMINO_ACID_CODE: Uint8Array = Uint8Array.from(AMINO_ACIDS, (c) => c.charCodeAt(0));

/** Character code of the stop symbol. */
export const STOP_CODE = '*'.charCodeAt(0);
