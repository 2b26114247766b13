// What `virnucpro predict` refuses, leaving no --out-dir behind (issue 15): not FASTA (empty, no '>' header,
// binary), not DNA, duplicate record ids. The input is read while the models load, and its error is the one said,
// whatever else failed meanwhile. Through the built CLI; exit 2, one line on stderr.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'predict-input-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const common = ['--models-dir', join(testData, 'demo-models'), '--backend', 'cpu', '--quiet'];

function predictOn(name: string, content: string | Buffer, ...extra: string[]) {
  const input = join(tmp, name);
  writeFileSync(input, content);
  const out = join(tmp, `out-${name}`);
  const r = runCli(['predict', input, ...common, '--out-dir', out, ...extra]);
  return { ...r, input, out, lines: r.stderr.trim().split('\n') };
}

describe('virnucpro predict: input that is not FASTA', () => {
  it.each([
    ['empty.fa', '', /no FASTA records \(the file is empty\)/],
    ['no-header.fa', 'ACGTACGTAC\nGGTTAACC\n', /line 1: expected a FASTA header line starting with '>'/],
    ['binary.fa', Buffer.from([0x00, 0xff, 0xfe, 0x10, 0x80, 0x81, 0x3e, 0x0a, 0x00, 0x01]), /line 1.*binary data/],
  ])('%s: exit 2, one line naming the file, no output folder', (name, content, message) => {
    const r = predictOn(name, content);
    expect(r.status).toBe(2);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toContain(r.input);
    expect(r.lines[0]).toMatch(message);
    expect(existsSync(r.out)).toBe(false);
  });
});

// A protein (UniProt P0A7B8-like) given as DNA: ~34% of its letters are E, F, I, L, P, Q and other non-nucleotide codes.
const PROTEIN =
  'MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVVHSLAKWKRQTLGQHDFSAGEGLYTHMKALRPDEDRLSPLHSVYVDQWDWERVMGDGERQFSTLKSTVEAIWAGIKATEAAVSEEFGLAPFLPDQIHFVHSQELLSRYPDLDAKGRERAIAKDLGAVFLVGIGGKLSDGHRHDVRAPDYDDW';
const DNA = 'ATGACCAAGTTTGCGCTAACGGTACCTGATTAGCATCGATCGGGCTTAACGTAGCTAGCTAGCATCGATCGACTAGCTAGCTAGCATCGATCGATCGA';

describe('virnucpro predict: input that is not DNA, duplicate ids', () => {
  it('refuses a protein FASTA (exit 2, one line naming file, line and record), no output folder', () => {
    const r = predictOn('protein.fa', `>dna1\n${DNA}\n>prot1 a protein\n${PROTEIN}\n`);
    expect(r.status).toBe(2);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toContain(`${r.input}: line 3: record 'prot1' is not DNA`);
    expect(r.lines[0]).toContain('--allow-non-dna');
    expect(existsSync(r.out)).toBe(false);
  });

  it('accepts IUPAC ambiguity codes, N runs and lower case (≤ 10% other characters)', () => {
    const iupac = `${DNA.toLowerCase()}NNNNNNNNNNRYSWKMBDHVUxxxxxxx`;
    const r = predictOn('iupac.fa', `>mixed\n${iupac}\n`);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('runs a protein FASTA with --allow-non-dna', () => {
    const r = predictOn('protein-allowed.fa', `>prot1\n${PROTEIN}\n`, '--allow-non-dna');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(existsSync(join(r.out, 'sequence_summary.tsv'))).toBe(true);
  });

  it('refuses duplicate record ids, naming the id and both header lines', () => {
    const r = predictOn('dup.fa', `>a\n${DNA}\n>dup first\n${DNA}\n${DNA}\n>b\n${DNA}\n>dup second\n${DNA}\n`);
    expect(r.status).toBe(2);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toContain(`${r.input}: record id 'dup' appears twice (lines 3 and 8)`);
    expect(existsSync(r.out)).toBe(false);
  });
});

describe('virnucpro predict: the input is checked while the models load', () => {
  it("says the input's error, not the model's, when both are bad", () => {
    const corruptMlp = join(tmp, 'corrupt-mlp.safetensors');
    writeFileSync(corruptMlp, 'not a safetensors file');
    const r = predictOn('protein-and-bad-mlp.fa', `>dna1\n${DNA}\n>prot1\n${PROTEIN}\n`, '--mlp', corruptMlp);
    expect(r.status).toBe(2);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toContain(`${r.input}: line 3: record 'prot1' is not DNA`);
    expect(existsSync(r.out)).toBe(false);
  });

  it('refuses a bad record at the end of a large input, leaving no folder (the models may have loaded by then)', () => {
    const records = Array.from({ length: 20_000 }, (_, i) => `>r${i}\n${DNA}\n`).join('');
    const r = predictOn('late-error.fa', `${records}>prot1\n${PROTEIN}\n`);
    expect(r.status).toBe(2);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toContain(`${r.input}: line 40001: record 'prot1' is not DNA`);
    expect(existsSync(r.out)).toBe(false);
  });

  it('still loads a corrupt model with a good input and says so (exit 2, no folder)', () => {
    const corruptMlp = join(tmp, 'corrupt-mlp-2.safetensors');
    writeFileSync(corruptMlp, 'not a safetensors file');
    const r = predictOn('good-input-bad-mlp.fa', `>dna1\n${DNA}\n`, '--mlp', corruptMlp);
    expect(r.status).toBe(2);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toContain(corruptMlp);
    expect(existsSync(r.out)).toBe(false);
  });
});
