// Protein lengths VirNucPro would embed for a genome: VirNucPro's overlapping chunks (reference §1.1),
// six-frame translation with the standard code (ambiguous codons dropped), frames kept only when
// stop-free (§1.2). A few lines on purpose: the real implementation is @virnucpro/sixframe; this
// script only needs lengths to measure packing.
const BASES = 'TCAG';
const AMINO = 'FFLLSSSSYY**CC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG';
const CODONS = new Map();
for (let i = 0; i < 64; i++) CODONS.set(BASES[i >> 4] + BASES[(i >> 2) & 3] + BASES[i & 3], AMINO[i]);

function translate(seq, offset) {
  let protein = '';
  for (let i = offset; i < seq.length - 2; i += 3) protein += CODONS.get(seq.slice(i, i + 3)) ?? '';
  return protein;
}

function reverseComplement(seq) {
  const map = { A: 'T', C: 'G', G: 'C', T: 'A' };
  let out = '';
  for (let i = seq.length - 1; i >= 0; i--) out += map[seq[i]] ?? seq[i];
  return out;
}

/** VirNucPro chunk starts: n = ceil(L/C) chunks with overlaps q+1 / q spread as in split_fasta_chunk. */
export function* chunks(sequence, size) {
  const L = sequence.length;
  if (L <= size) return yield sequence;
  const n = Math.ceil(L / size);
  const R = n * size - L;
  const q = Math.floor(R / n);
  const u = R - q * (n - 1);
  const gaps = [...Array(Math.max(0, u)).fill(q + 1), ...Array(Math.max(0, n - 1 - u)).fill(q), 0];
  let move = 0;
  for (let k = 0; k < n; k++) {
    const a = k * size;
    const start = a <= 1 ? a : a - move;
    yield sequence.slice(start, start + size);
    move += gaps[k];
  }
}

/** Lengths (aa) of the stop-free frames of every chunk, in file order. */
export function orfLengths(sequence, chunkSize) {
  const lengths = [];
  for (const chunk of chunks(sequence, chunkSize)) {
    const upper = chunk.toUpperCase();
    const rc = reverseComplement(upper);
    for (const strand of [upper, rc]) {
      for (let f = 0; f < 3; f++) {
        const protein = translate(strand, f);
        if (protein !== '' && !protein.includes('*')) lengths.push(protein.length);
      }
    }
  }
  return lengths;
}
