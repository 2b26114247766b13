import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';
import { beforeAll, describe, expect, it } from 'vitest';
import { BpeTokenizer } from '../src/index.js';
import { parseTokenizerJson } from '../src/tokenizer-json.js';
import { ReferenceBpeTokenizer } from './reference-bpe-tokenizer.js';

const dataDir = fileURLToPath(new URL('../../../test-data/dnabert/', import.meta.url));
const tokenizerPath = `${dataDir}tokenizer.json`;
const vectors = JSON.parse(readFileSync(`${dataDir}vectors.json`, 'utf8'));
const tinyInputs = JSON.parse(readFileSync(`${dataDir}tiny/inputs.json`, 'utf8'));

let tokenizer: BpeTokenizer;
beforeAll(async () => {
  tokenizer = await BpeTokenizer.fromFile(tokenizerPath);
});

describe('BpeTokenizer against Hugging Face tokenizers 0.23 (vectors.json)', () => {
  const cases = Object.entries(vectors.res as Record<string, { ids: number[]; tokens: string[] }>);
  it.each(cases)('%s', (sequence, expected) => {
    const ids = tokenizer.encode(sequence);
    expect([...ids]).toEqual(expected.ids);
    expect(tokenizer.idsToTokens(ids)).toEqual(expected.tokens);
    expect(tokenizer.tokenCount(sequence)).toBe(expected.ids.length);
  });

  it('the 500-bp random sequence', () => {
    const { seq, ids, n_ids } = vectors.rand500_seed0_py_random;
    expect(seq.length).toBe(500);
    expect([...tokenizer.encode(seq)]).toEqual(ids);
    expect(ids.length).toBe(n_ids);
  });

  it('the dnabert-tiny fixture sequences', () => {
    tinyInputs.sequences.forEach((seq: string, i: number) => {
      expect([...tokenizer.encode(seq)]).toEqual(tinyInputs.token_ids[i]);
    });
  });

  it('ignores the stored Fixed-2000 padding and 2000 truncation', () => {
    const json = JSON.parse(readFileSync(tokenizerPath, 'utf8'));
    expect(json.padding.strategy.Fixed).toBe(2000);
    expect(tokenizer.encode('GATTACA').length).toBe(4);
    const long = 'ACGT'.repeat(3000); // > 2000 tokens would be truncated if truncation applied
    expect(tokenizer.encode(long).length).toBeGreaterThan(2000);
  });

  it('special ids come from the template and vocab', () => {
    expect(tokenizer.prefixIds).toEqual([1]);
    expect(tokenizer.suffixIds).toEqual([2]);
    expect(tokenizer.unkId).toBe(0);
    expect(tokenizer.padId).toBe(3);
  });
});

describe('BpeTokenizer agrees with @huggingface/tokenizers on random inputs', () => {
  it('2000 random 1-600 char strings over ACGT, N, IUPAC, lower case, spaces, specials', () => {
    const hf = new Tokenizer(JSON.parse(readFileSync(tokenizerPath, 'utf8')), {});
    // Deterministic LCG so a failure is reproducible.
    let state = 12345;
    const rand = (n: number) => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) % n);
    const alphabets = ['ACGT', 'ACGTACGTACGTN', 'ACGTRYKMSWacgtn -.[CLS][MASK]é'];
    for (let k = 0; k < 2000; k++) {
      const alphabet = alphabets[k % alphabets.length];
      const len = 1 + rand(600);
      let s = '';
      for (let j = 0; j < len; j++) s += alphabet[rand(alphabet.length)];
      const ours = [...tokenizer.encode(s)];
      const theirs = hf.encode(s).ids;
      if (ours.join() !== theirs.join()) expect({ s, ours }).toEqual({ s, ours: theirs });
    }
  });
});

describe('BpeTokenizer agrees with reference-bpe-tokenizer.ts (the heap BPE of 08a4edc) on random DNA', () => {
  // Deterministic LCG so a failure is reproducible.
  let state = 2026;
  const rand = (n: number) => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) % n);
  const genome = readFileSync(new URL('../../../test-data/lambda_virus.fa', import.meta.url), 'utf8').split('\n').slice(1).join('');
  const sameIds = (reference: ReferenceBpeTokenizer, s: string) => {
    const ours = [...tokenizer.encode(s)];
    const theirs = [...reference.encode(s)];
    if (ours.join() !== theirs.join()) expect({ s, ours }).toEqual({ s, ours: theirs });
    expect(tokenizer.tokenCount(s)).toBe(theirs.length);
  };
  let reference: ReferenceBpeTokenizer;
  beforeAll(async () => {
    reference = await ReferenceBpeTokenizer.fromFile(tokenizerPath);
  });

  it('5000 strings of 0-3000 characters: ACGT, with N, lower case, IUPAC, whitespace, specials, other characters', () => {
    const alphabets = ['ACGT', 'ACGTN', 'ACGTNNNNNN', 'acgtn', 'ACGTacgtN', 'ACGTRYKMSWBDHV', 'AC GT\t\nN', 'ACGT-.*[CLS][MASK]é😀'];
    for (let k = 0; k < 5000; k++) {
      const alphabet = [...alphabets[k % alphabets.length]];
      const len = rand(k % 50 === 0 ? 3000 : 600);
      let s = '';
      for (let j = 0; j < len; j++) s += alphabet[rand(alphabet.length)];
      sameIds(reference, s);
    }
  });

  it('repeats and homopolymers, where equal-rank merges overlap (leftmost first)', () => {
    const units = ['A', 'T', 'AT', 'CA', 'ACG', 'AAC', 'GGCC', 'ATAT', 'TTTTA', 'ACGTACGTTG'];
    for (let k = 0; k < 2000; k++) {
      const unit = units[k % units.length];
      let s = unit.repeat(1 + rand(200)).slice(rand(unit.length));
      if (k % 3 === 0) s = s.slice(0, rand(s.length + 1)) + 'ACGT'[rand(4)] + s.slice(rand(s.length + 1));
      sameIds(reference, s);
    }
  });

  it('2000 windows of phage lambda of 1-1000 bp, and the whole genome in one piece', () => {
    for (let k = 0; k < 2000; k++) {
      const len = 1 + rand(1000);
      const start = rand(genome.length - len);
      sameIds(reference, genome.slice(start, start + len));
    }
    sameIds(reference, genome);
  });
});

describe('BpeTokenizer agrees with reference-bpe-tokenizer.ts on random tokenizers', () => {
  // Merges in training order over a two- or three-letter alphabet, some tokens made by two merges (as Hugging Face's
  // trainer can).
  let state = 7;
  const rand = (n: number) => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) % n);
  function randomTokenizer(alphabet: string[]): { json: object; madeTwice: number } {
    const vocab = new Map<string, number>([['[UNK]', 0]]);
    for (const c of alphabet) vocab.set(c, vocab.size);
    const tokens = [...alphabet];
    const merges: string[] = [];
    const used = new Set<string>();
    let madeTwice = 0;
    for (let tries = 0; merges.length < 60 && tries < 2000; tries++) {
      const [left, right] = [tokens[rand(tokens.length)], tokens[rand(tokens.length)]];
      const made = left + right;
      // A pair listed once; a token made again only before any merge uses it (training order).
      if (made.length > 10 || merges.includes(`${left} ${right}`) || (vocab.has(made) && used.has(made))) continue;
      used.add(left).add(right);
      if (vocab.has(made)) madeTwice++;
      else tokens.push(made), vocab.set(made, vocab.size);
      merges.push(`${left} ${right}`);
    }
    const model = { type: 'BPE', vocab: Object.fromEntries(vocab), merges, unk_token: '[UNK]' };
    return { json: { model, normalizer: null, pre_tokenizer: { type: 'Whitespace' }, added_tokens: [{ id: 0, content: '[UNK]' }], post_processor: null }, madeTwice };
  }

  it('300 tokenizers × 40 strings of 0-400 characters', () => {
    let madeTwice = 0;
    for (let t = 0; t < 300; t++) {
      const alphabet = t % 2 ? ['A', 'C'] : ['A', 'C', 'G'];
      const { json, madeTwice: twice } = randomTokenizer(alphabet);
      madeTwice += twice;
      const ours = new BpeTokenizer(parseTokenizerJson(json));
      const reference = new ReferenceBpeTokenizer(parseTokenizerJson(json));
      const chars = [...alphabet, ...alphabet, ...alphabet, 'N', ' '];
      for (let k = 0; k < 40; k++) {
        const len = rand(400);
        let s = '';
        for (let j = 0; j < len; j++) s += chars[rand(chars.length)];
        const [a, b] = [[...ours.encode(s)], [...reference.encode(s)]];
        if (a.join() !== b.join()) expect({ merges: (json as { model: { merges: string[] } }).model.merges, s, ids: a }).toEqual({ merges: (json as { model: { merges: string[] } }).model.merges, s, ids: b });
      }
    }
    expect(madeTwice).toBeGreaterThan(100);
  });
});

describe('BpeTokenizer refuses merges out of training order', () => {
  it('a merge before the one that makes its token: the merge, the token and the later merge named', () => {
    const json = JSON.parse(readFileSync(tokenizerPath, 'utf8'));
    const merges: string[] = json.model.merges;
    const late = merges.findIndex((m) => m.split(' ')[0].length > 1); // its left token is made by an earlier merge
    const reordered = [merges[late], ...merges.filter((_, i) => i !== late)];
    const token = merges[late].split(' ')[0];
    const maker = reordered.findIndex((m) => m.replace(' ', '') === token);
    expect(() => new BpeTokenizer(parseTokenizerJson({ ...json, model: { ...json.model, merges: reordered } }))).toThrow(
      `tokenizer.json: merge "${merges[late]}" (rank 0) uses "${token}", which the later merge of rank ${maker} makes (merges out of training order are not supported)`,
    );
  });

  it('a pair listed again after its first place is ignored, as Hugging Face does: not out of order', () => {
    const json = JSON.parse(readFileSync(tokenizerPath, 'utf8'));
    const merges: string[] = json.model.merges;
    const t = new BpeTokenizer(parseTokenizerJson({ ...json, model: { ...json.model, merges: [...merges, merges[0], merges[500]] } }));
    expect([...t.encode('GATTACA')]).toEqual([1, 260, 12, 2]);
  });
});

describe('parseTokenizerJson', () => {
  it('rejects a tokenizer it would not reproduce exactly', () => {
    const json = JSON.parse(readFileSync(tokenizerPath, 'utf8'));
    expect(() => parseTokenizerJson({ ...json, normalizer: { type: 'Lowercase' } }, 'x.json')).toThrow(/x\.json: .*normalizer/);
    expect(() => parseTokenizerJson({ ...json, model: { ...json.model, type: 'WordPiece' } }, 'x.json')).toThrow(/BPE/);
    expect(() => parseTokenizerJson({ ...json, model: { ...json.model, fuse_unk: true } }, 'x.json')).toThrow(/fuse_unk/);
  });


  it('accepts merges stored as [left, right] arrays (newer tokenizers)', () => {
    const json = JSON.parse(readFileSync(tokenizerPath, 'utf8'));
    json.model.merges = json.model.merges.map((m: string) => m.split(' '));
    const t = new BpeTokenizer(parseTokenizerJson(json));
    expect([...t.encode('GATTACA')]).toEqual([1, 260, 12, 2]);
  });
});
