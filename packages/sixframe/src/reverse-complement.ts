/**
 * Reverse complement exactly as VirNucPro: `s.translate(str.maketrans('ACGTacgt', 'TGCAtgca'))[::-1]`.
 * Only A, C, G, T (either case) are complemented; IUPAC codes and anything else (N, R, Y, -, …) are kept as they
 * are, just reversed.
 */
export function reverseComplement(sequence: string): string {
  const n = sequence.length;
  let out = '';
  // Chunks are short (≤ 500 bases): building the string backwards from single characters is fast in V8.
  for (let i = n - 1; i >= 0; i--) {
    const c = sequence.charCodeAt(i);
    out += COMPLEMENT_CHAR[c] ?? sequence[i];
  }
  return out;
}

const COMPLEMENT_PAIRS = [['A', 'T'], ['C', 'G'], ['G', 'C'], ['T', 'A'], ['a', 't'], ['c', 'g'], ['g', 'c'], ['t', 'a']] as const;

const COMPLEMENT_CHAR: Record<number, string> = {};
for (const [from, to] of COMPLEMENT_PAIRS) COMPLEMENT_CHAR[from.charCodeAt(0)] = to;

/** The same rule on bytes: a byte's complement code, or the byte itself when it is not A, C, G or T (either case). */
export const COMPLEMENT_CODE: Uint8Array = (() => {
  const table = Uint8Array.from({ length: 256 }, (_, c) => c);
  for (const [from, to] of COMPLEMENT_PAIRS) table[from.charCodeAt(0)] = to.charCodeAt(0);
  return table;
})();
