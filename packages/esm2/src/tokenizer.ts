import { clsId, eosId, specialTokens, tokenToId, unkId } from './alphabet.js';

/**
 * What to do with characters outside the alphabet (lower case, `*`, `J`, ...):
 * - `error` (default): throw, as fair-esm does (the tool VirNucPro uses; its `Alphabet.encode` raises KeyError);
 * - `unk`: Hugging Face EsmTokenizer semantics — each whitespace-free run of unknown characters becomes ONE `<unk>`.
 * VirNucPro's proteins only contain the 20 standard letters (translation drops everything else), so the
 * choice only matters for hand-made input.
 */
export type UnknownPolicy = 'error' | 'unk';

export interface TokenizeOptions {
  unknown?: UnknownPolicy;
}

export class UnknownResidueError extends Error {
  constructor(readonly character: string, readonly position: number) {
    super(`unknown protein character ${JSON.stringify(character)} at position ${position + 1} (ESM-2 alphabet: 20 amino acids, X B U Z O . - and <...> specials)`);
    this.name = 'UnknownResidueError';
  }
}

const whitespace = /\s/;

/**
 * Token ids of one protein: `<cls>` + residues + `<eos>`, like fair-esm's BatchConverter without
 * truncation. Whitespace is ignored; `<mask>`, `<unk>`, ... written inline are single tokens.
 */
export function tokenizeProtein(sequence: string, options: TokenizeOptions = {}): Int32Array {
  const unknown = options.unknown ?? 'error';
  const ids: number[] = [clsId];
  let inUnknownRun = false;
  for (let i = 0; i < sequence.length; i++) {
    const ch = sequence[i];
    if (ch === '<') {
      const special = specialTokens.find((tok) => sequence.startsWith(tok, i));
      if (special) {
        ids.push(tokenToId.get(special)!);
        i += special.length - 1;
        inUnknownRun = false;
        continue;
      }
    }
    if (whitespace.test(ch)) {
      inUnknownRun = false;
      continue;
    }
    const id = ch.length === 1 && ch !== '<' ? tokenToId.get(ch) : undefined;
    if (id !== undefined) {
      ids.push(id);
      inUnknownRun = false;
    } else if (unknown === 'error') {
      throw new UnknownResidueError(ch, i);
    } else if (!inUnknownRun) {
      ids.push(unkId);
      inUnknownRun = true;
    }
  }
  ids.push(eosId);
  return Int32Array.from(ids);
}

/**
 * Token count of a protein made only of alphabet letters (residues + BOS + EOS): the packer's unit.
 * Exact for standard input; `tokenizeProtein(...).length` is the general answer.
 */
export function proteinTokenCount(sequence: string): number {
  return sequence.length + 2;
}
