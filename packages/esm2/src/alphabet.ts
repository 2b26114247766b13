// The ESM-1b alphabet used by every ESM-2 model (fair-esm esm/data.py
// Alphabet.from_architecture("ESM-1b"); HF vocab.txt has the same order).

export const esmTokens: readonly string[] = [
  '<cls>', '<pad>', '<eos>', '<unk>',
  'L', 'A', 'G', 'V', 'S', 'E', 'R', 'T', 'I', 'D', 'P', 'K', 'Q', 'N', 'F', 'Y', 'M', 'H', 'W', 'C',
  'X', 'B', 'U', 'Z', 'O', '.', '-',
  '<null_1>', '<mask>',
];

export const clsId = 0; // used as BOS
export const padId = 1;
export const eosId = 2;
export const unkId = 3;
export const maskId = 32;

export const tokenToId: ReadonlyMap<string, number> = new Map(esmTokens.map((tok, id) => [tok, id]));

/** Tokens written as `<...>` that the tokenizers recognise inline (longest first). */
export const specialTokens: readonly string[] = esmTokens.filter((t) => t.startsWith('<')).sort((a, b) => b.length - a.length);
