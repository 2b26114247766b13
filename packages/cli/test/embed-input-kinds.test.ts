// What embed esm2 / embed dnabert are given by mistake, and --truncate: a DNA FASTA to the protein model (it used to
// run into `memory access out of bounds` on a genome), a protein FASTA to the DNA model, an empty FASTA (exit 2 as
// predict), each one line and exit 2 before a model is loaded or an output written.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEmbeddings, runCli, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'embed-kinds-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const esm = join(testData, 'esm2-transformers5', 'masked-lm');
const dnabert = join(testData, 'e2e', 'dnabert-tiny');
const embed = (model: string, modelPath: string, input: string, output: string, ...extra: string[]) =>
  runCli(['embed', model, '--model', modelPath, '--input', input, '--output', output, '--backend', 'cpu', '--quiet', ...extra]);

describe('embed given the wrong kind of FASTA', () => {
  it('embed esm2 on a DNA FASTA: one line saying it looks like DNA, exit 2, no output', () => {
    const output = join(tmp, 'dna.safetensors');
    const r = embed('esm2', esm, join(testData, 'lambda_virus.fa'), output);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^virnucpro: .*lambda_virus\.fa: record 1 \(>gi\|9626243\|ref\|NC_001416\.1\|\): looks like DNA, not protein: 100% of its 48502 characters are A, C, G, T\/U or N\. embed esm2 reads proteins/),
    ]);
    expect(r.status).toBe(2);
    expect(existsSync(output)).toBe(false);
  });

  it('embed dnabert on a protein FASTA: one line saying it is not DNA, exit 2', () => {
    const input = join(tmp, 'proteins.faa');
    writeFileSync(input, '>p1\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVVHSLAKWKRQTLGQHDFSAGEGLYTHMKALRPDEDRLSPLHSVYVDQWDWERVMGDGERQFSTLKSTVEAIWAGIKATEAAVSEEFGLAPFLPDQIHFVHSQELLSRYPDLDAKGRERAIAKDLGAVFLVGIGGKLSDGHRHDVRAPDYDDWSTPSELGHAGLNGDILVWNPVLEDAFELSSMGIRVDADTLKHQLALTGDEDRLELEWHQALLRGEMPQTIGGGIGQSRLTMLLLQLPHIGQVQAGVWPAACRESVPALL\n');
    const r = embed('dnabert', dnabert, input, join(tmp, 'p.safetensors'));
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/proteins\.faa: record 1 \(>p1\): is not DNA: \d+% of its \d+ characters are not nucleotide codes \(.*; a protein FASTA\?\)\. embed dnabert reads DNA/)]);
    expect(r.status).toBe(2);
  });

  it('embed esm2 on an empty FASTA exits 2 as predict does', () => {
    const input = join(tmp, 'empty.faa');
    writeFileSync(input, '');
    const output = join(tmp, 'empty.safetensors');
    const r = embed('esm2', esm, input, output);
    expect(r.stderr.trim().split('\n')).toEqual([`virnucpro: ${input}: no FASTA records (the file is empty)`]);
    expect(r.status).toBe(2);
    expect(existsSync(output)).toBe(false);
  });

  it('short peptides made of A, C, G, T letters are still embedded as proteins', () => {
    const input = join(tmp, 'peptides.faa');
    writeFileSync(input, '>a\nACGTAC\n>b\nMKTAYIAK\n');
    const r = embed('esm2', esm, input, join(tmp, 'peptides.safetensors'));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('embed --truncate', () => {
  it('embeds the first N characters of longer records, as if the record were cut', async () => {
    const sequences = (JSON.parse(readFileSync(join(testData, 'esm2-transformers5', 'inputs.json'), 'utf8')) as { sequences: string[] }).sequences;
    const long = sequences[4];
    writeFileSync(join(tmp, 'long.faa'), `>long\n${long}\n>short\n${sequences[1]}\n`);
    writeFileSync(join(tmp, 'cut.faa'), `>long\n${long.slice(0, 50)}\n>short\n${sequences[1]}\n`);
    expect(embed('esm2', esm, join(tmp, 'long.faa'), join(tmp, 'truncated.safetensors'), '--truncate', '50').status).toBe(0);
    expect(embed('esm2', esm, join(tmp, 'cut.faa'), join(tmp, 'cut.safetensors')).status).toBe(0);
    const truncated = await readEmbeddings(join(tmp, 'truncated.safetensors'));
    const cut = await readEmbeddings(join(tmp, 'cut.safetensors'));
    expect(Array.from(truncated.values)).toEqual(Array.from(cut.values));
    const bad = embed('esm2', esm, join(tmp, 'long.faa'), join(tmp, 'x.safetensors'), '--truncate', '0');
    expect(bad.stderr.trim()).toBe('virnucpro: --truncate must be a positive integer, got 0');
    expect(bad.status).toBe(2);
  });
});
