import { describe, expect, it } from 'vitest';
import { asciiStopFreeProteinLengths, CODON_TABLE, identifyFrames, reverseComplement, stopFreeProteinLengths, translateFrame, translateSixFrames } from '../src/index.js';

// The codon table literal of the original units.py::translate_dna (reference data, copied as written there).
const ORIGINAL_CODON_TABLE: Record<string, string> = {
  TCA: 'S', TCC: 'S', TCG: 'S', TCT: 'S', TTC: 'F', TTT: 'F', TTA: 'L', TTG: 'L',
  TAC: 'Y', TAT: 'Y', TAA: '*', TAG: '*', TGC: 'C', TGT: 'C', TGA: '*', TGG: 'W',
  CTA: 'L', CTC: 'L', CTG: 'L', CTT: 'L', CCA: 'P', CCC: 'P', CCG: 'P', CCT: 'P',
  CAC: 'H', CAT: 'H', CAA: 'Q', CAG: 'Q', CGA: 'R', CGC: 'R', CGG: 'R', CGT: 'R',
  ATA: 'I', ATC: 'I', ATT: 'I', ATG: 'M', ACA: 'T', ACC: 'T', ACG: 'T', ACT: 'T',
  AAC: 'N', AAT: 'N', AAA: 'K', AAG: 'K', AGC: 'S', AGT: 'S', AGA: 'R', AGG: 'R',
  GTA: 'V', GTC: 'V', GTG: 'V', GTT: 'V', GCA: 'A', GCC: 'A', GCG: 'A', GCT: 'A',
  GAC: 'D', GAT: 'D', GAA: 'E', GAG: 'E', GGA: 'G', GGC: 'G', GGG: 'G', GGT: 'G',
};

describe('codon table', () => {
  it('is the original 64-codon standard table', () => {
    expect({ ...CODON_TABLE }).toEqual(ORIGINAL_CODON_TABLE);
  });
  it('translates every codon through translateFrame', () => {
    for (const [codon, aa] of Object.entries(ORIGINAL_CODON_TABLE)) expect(translateFrame(codon, 0)).toBe(aa);
  });
});

describe('reverseComplement', () => {
  it('complements A/C/G/T in either case and leaves IUPAC letters alone', () => {
    expect(reverseComplement('ACGTRYNacgtn')).toBe('nacgtNYRACGT');
  });
});

describe('translateFrame / translateSixFrames', () => {
  it('drops codons with any non-ACGT letter instead of writing X', () => {
    expect(translateFrame('ATGNNNATG', 0)).toBe('MM');
    expect(translateFrame('ATGRTGATG', 0)).toBe('MM');
  });
  it('does not translate lower case (the caller uppercases first)', () => {
    expect(translateFrame('atgATG', 0)).toBe('M');
  });
  it('stops at len − 2 like range(offset, len(s) − 2, 3)', () => {
    expect(translateFrame('ATGAT', 0)).toBe('M');
    expect(translateFrame('ATGAT', 2)).toBe('D');
    expect(translateFrame('AT', 0)).toBe('');
  });
  it('returns forward 0,1,2 then reverse-complement 0,1,2', () => {
    // ATGC: F1 ATG=M, F2 TGC=C, F3 none; rc GCAT: R1 GCA=A, R2 CAT=H, R3 none.
    expect(translateSixFrames('ATGC')).toEqual(['M', 'C', '', 'A', 'H', '']);
  });
});

describe('identifyFrames (prediction mode)', () => {
  it('keeps every stop-free frame with the one-base-longer nucleotide slice', () => {
    // Hand-derived: F1 'M' slice [0,4), F2 'C' slice [1,5) clipped, F3 empty (dropped),
    // R1 'A' from rc GCAT [0,4), R2 'H' [1,5) clipped, R3 empty.
    expect(identifyFrames('s', 'ATGC')).toEqual([
      { id: 'sF1', nucleotide: 'ATGC', protein: 'M' },
      { id: 'sF2', nucleotide: 'TGC', protein: 'C' },
      { id: 'sR1', nucleotide: 'GCAT', protein: 'A' },
      { id: 'sR2', nucleotide: 'CAT', protein: 'H' },
    ]);
  });

  it('reproduces the misaligned slice when ambiguous codons were dropped (reference example)', () => {
    // ATGNNNATG: F1 → 'MM' with nucleotide ATGNNNA; rc CATNNNCAT: R1 → 'HH', CATNNNC. Other frames translate to ''.
    expect(identifyFrames('x', 'ATGNNNATG')).toEqual([
      { id: 'xF1', nucleotide: 'ATGNNNA', protein: 'MM' },
      { id: 'xR1', nucleotide: 'CATNNNC', protein: 'HH' },
    ]);
  });

  it('uppercases before translating and writes the uppercased slice', () => {
    expect(identifyFrames('x', 'atgnnnatg')).toEqual(identifyFrames('x', 'ATGNNNATG'));
  });

  it('drops a frame as soon as it contains a stop', () => {
    // TAA forward has a stop; rc TTA = L (kept).
    expect(identifyFrames('t', 'TAA')).toEqual([{ id: 'tR1', nucleotide: 'TTA', protein: 'L' }]);
    expect(identifyFrames('t', 'TAATAGTGA').map((f) => f.id)).not.toContain('tF1');
  });

  it('matches the reference slice lengths (500 bp: R1 499/166, R3 498/166; 174 bp: R1 174/58, R2 172/57; 171 bp: R1 171/57, R2 169/56)', () => {
    const lengths = (frames: ReturnType<typeof identifyFrames>, id: string) => {
      const f = frames.find((x) => x.id === id)!;
      return [f.nucleotide.length, f.protein.length];
    };
    const gc500 = 'GCC'.repeat(167).slice(0, 500); // no stop on either strand
    const f500 = identifyFrames('a', gc500);
    expect(lengths(f500, 'aR1')).toEqual([499, 166]);
    expect(lengths(f500, 'aR3')).toEqual([498, 166]);
    const f174 = identifyFrames('b', 'GCC'.repeat(58));
    expect(lengths(f174, 'bR1')).toEqual([174, 58]);
    expect(lengths(f174, 'bR2')).toEqual([172, 57]);
    const f171 = identifyFrames('c', 'GCC'.repeat(57));
    expect(lengths(f171, 'cR1')).toEqual([171, 57]);
    expect(lengths(f171, 'cR2')).toEqual([169, 56]);
  });

  it('agrees with a direct transliteration of identify_seq on random sequences', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const alphabet = 'ACGACGACGTNRYacgt';
    const mismatches: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const n = next() % 60;
      let s = '';
      for (let j = 0; j < n; j++) s += alphabet[next() % alphabet.length];
      if (JSON.stringify(identifyFrames('q', s)) !== JSON.stringify(pythonIdentify('q', s))) mismatches.push(s);
    }
    expect(mismatches).toEqual([]);
  });

  it('agrees with it on reads and chunks up to 500 bases with few stops, lower case, IUPAC letters and text beyond ASCII', () => {
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    // Alphabets where stops are rare, so that most frames are kept and translated whole.
    const alphabets = ['GCGCGCATC', 'GCCGCAgcNNGG', 'ACGTRYKM', 'GCGCacgtß-', 'GCCGGC\u00e9T'];
    const mismatches: string[] = [];
    let kept = 0;
    for (let i = 0; i < 2000; i++) {
      const alphabet = alphabets[i % alphabets.length];
      const n = [150, 300, 500, 299, 301, 1, 2, 3, 4][i % 9];
      let s = '';
      for (let j = 0; j < n; j++) s += alphabet[next() % alphabet.length];
      const frames = identifyFrames('q', s);
      kept += frames.length;
      if (JSON.stringify(frames) !== JSON.stringify(pythonIdentify('q', s))) mismatches.push(s);
    }
    expect(mismatches).toEqual([]);
    expect(kept).toBeGreaterThan(2000); // the comparison covered kept frames, not only dropped ones
  });
});

/** units.py::identify_seq (prediction mode) after process_record's upper(), plus the writer's protein != '' filter. */
function pythonIdentify(seqid: string, raw: string) {
  const sequence = raw.toUpperCase();
  const rc = (s: string) =>
    s.split('').map((c) => ({ A: 'T', C: 'G', G: 'C', T: 'A', a: 't', c: 'g', g: 'c', t: 'a' })[c] ?? c).reverse().join('');
  const frame = (s: string, f: number) => {
    let out = '';
    for (let i = f; i < s.length - 2; i += 3) out += ORIGINAL_CODON_TABLE[s.slice(i, i + 3)] ?? '';
    return out;
  };
  const proteins = [0, 1, 2].map((f) => frame(sequence, f)).concat([0, 1, 2].map((f) => frame(rc(sequence), f)));
  const out: { id: string; nucleotide: string; protein: string }[] = [];
  proteins.forEach((item, index) => {
    const num = index + 1;
    if (item.includes('*') || item === '') return;
    const seqLen = item.length * 3;
    if (num <= 3) out.push({ id: `${seqid}F${num}`, nucleotide: sequence.slice(num - 1, num + seqLen), protein: item });
    else out.push({ id: `${seqid}R${num - 3}`, nucleotide: rc(sequence).slice(num - 3 - 1, num - 3 + seqLen), protein: item });
  });
  return out;
}

describe('stopFreeProteinLengths', () => {
  it("gives identifyFrames' protein lengths, in its order, on random sequences of any case, N and IUPAC letters", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    // Mostly ASCII; one sequence in ten also draws letters whose upper case is longer (ß → SS, ﬀ → FF) or ASCII (ſ → S).
    const ascii = 'ACGTACGTACGTacgtNRYK-';
    const beyond = ascii + 'ßﬀſé';
    let kept = 0;
    for (let i = 0; i < 3000; i++) {
      const length = Math.floor(random() * 160);
      const letters = i % 10 === 9 ? beyond : ascii;
      const sequence = Array.from({ length }, () => letters[Math.floor(random() * letters.length)]).join('');
      const expected = identifyFrames('s', sequence).map((f) => f.protein.length);
      kept += expected.length;
      expect(stopFreeProteinLengths(sequence)).toEqual(expected);
    }
    expect(kept).toBeGreaterThan(1000); // the sample holds many kept frames, not only stops
  });

  it('reads a span of ASCII bytes as stopFreeProteinLengths reads that slice of the text', () => {
    let seed = 11;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const letters = 'ACGTACGTACGTacgtNRYK-';
    let kept = 0;
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: Math.floor(random() * 200) }, () => letters[Math.floor(random() * letters.length)]).join('');
      const bytes = new TextEncoder().encode(text);
      const start = Math.floor(random() * (text.length + 1));
      const end = start + Math.floor(random() * (text.length - start + 1));
      const expected = identifyFrames('s', text.slice(start, end)).map((f) => f.protein.length);
      kept += expected.length;
      expect(asciiStopFreeProteinLengths(bytes, start, end)).toEqual(expected);
    }
    expect(kept).toBeGreaterThan(1000);
  });
});
