import { describe, expect, it } from 'vitest';
import { tokenizeProtein, UnknownResidueError } from '../src/index.js';
import { esmTokens } from '../src/alphabet.js';
import { proteinTokenCount } from '../src/tokenizer.js';
import { loadFixture } from './fixture.js';

describe('ESM alphabet', () => {
  it('has the 33 ESM-1b tokens in fair-esm order', () => {
    expect(esmTokens.length).toBe(33);
    expect(esmTokens.indexOf('M')).toBe(20);
    expect(esmTokens.indexOf('X')).toBe(24);
    expect(esmTokens.indexOf('<null_1>')).toBe(31);
    expect(esmTokens.indexOf('<mask>')).toBe(32);
  });
});

describe('tokenizeProtein', () => {
  const ids = (s: string, unknown?: 'error' | 'unk') => Array.from(tokenizeProtein(s, { unknown }));

  it('matches the fair-esm test vectors (models-reference D.2)', () => {
    expect(ids('MKTVRQG')).toEqual([0, 20, 15, 11, 7, 10, 16, 6, 2]);
    expect(ids('KALTA<mask>ISQP')).toEqual([0, 15, 5, 4, 11, 5, 32, 12, 8, 16, 14, 2]);
    expect(ids('K A <mask> I S Q')).toEqual([0, 15, 5, 32, 12, 8, 16, 2]);
  });

  it('matches the Hugging Face (esm.cpp) vectors, unknown runs as one <unk> under unknown=unk', () => {
    expect(ids('XBUZ')).toEqual([0, 24, 25, 26, 27, 2]);
    expect(ids('MKTGVBUZO.X-')).toEqual([0, 20, 15, 11, 6, 7, 25, 26, 27, 28, 29, 24, 30, 2]);
    expect(ids('M K T G V')).toEqual([0, 20, 15, 11, 6, 7, 2]);
    expect(ids('<null_1>')).toEqual([0, 31, 2]);
    expect(ids('mktgv', 'unk')).toEqual([0, 3, 2]);
    expect(ids('AJ*A', 'unk')).toEqual([0, 5, 3, 5, 2]);
  });

  it('rejects unknown characters by default, as fair-esm does, naming the character and position', () => {
    expect(() => ids('MKT*')).toThrow(UnknownResidueError);
    expect(() => ids('MKTj')).toThrow(/"j" at position 4/);
  });

  it('reproduces the fixture token ids', async () => {
    const { sequences, tokenIds } = await loadFixture();
    sequences.forEach((s, i) => {
      expect(ids(s)).toEqual(tokenIds[i]);
      expect(proteinTokenCount(s)).toBe(tokenIds[i].length);
    });
  });
});
