import { describe, expect, it } from 'vitest';
import { inputStem } from '../src/index.js';

describe('inputStem', () => {
  it("applies the original's rule (up to the first .fa) to the name it would have seen: compression suffix off first", () => {
    expect(inputStem('/data/x.fa')).toBe('x');
    expect(inputStem('reads.fasta.gz')).toBe('reads');
    expect(inputStem('reads.fna')).toBe('reads.fna');
    expect(inputStem('/refs/NC_008253.fna.gz')).toBe('NC_008253.fna');
    expect(inputStem('contigs.fna.bgz')).toBe('contigs.fna');
    expect(inputStem('genes.FA.GZ')).toBe('genes.FA');
  });
});
