import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedMeans, maxRowDiff, readEmbeddings, runCli, tempLeftovers, testData } from './cli-harness.js';

const tinyDir = join(testData, 'dnabert', 'tiny');

describe('virnucpro embed dnabert', () => {
  let dir: string;
  let sequences: string[];
  let binOnlyDir: string;
  let means: Float32Array[];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'embed-dnabert-'));
    sequences = (JSON.parse(readFileSync(join(tinyDir, 'inputs.json'), 'utf8')) as { sequences: string[] }).sequences;
    writeFileSync(join(dir, 'dna.fa'), sequences.map((s, i) => `>seq_${i} some description\n${s}\n`).join(''));
    // The fixture folder prefers model.safetensors; this one offers only the pickle.
    binOnlyDir = join(dir, 'bin-only');
    mkdirSync(binOnlyDir);
    for (const f of ['config.json', 'tokenizer.json', 'pytorch_model.bin']) copyFileSync(join(tinyDir, f), join(binOnlyDir, f));
    means = await expectedMeans(join(tinyDir, 'expected.safetensors'), sequences.length);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['model.safetensors', () => tinyDir],
    ['pytorch_model.bin', () => binOnlyDir],
  ])('from %s: reference means in input order, ids and config in metadata, and a summary', async (weights, modelDir) => {
    const output = join(dir, `${weights}.safetensors`);
    const summaryPath = join(dir, `${weights}.summary.json`);
    // A small budget packs the 8 sequences (365 tokens) into several batches that finish out of input order.
    const r = runCli(['embed', 'dnabert', '--model', modelDir(), '--input', join(dir, 'dna.fa'), '--output', output,
      '--backend', 'cpu', '--token-budget', '120', '--summary', summaryPath, '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const file = await readEmbeddings(output);
    expect(file.shape).toEqual([sequences.length, 64]);
    expect(file.ids).toEqual(sequences.map((_, i) => `seq_${i}`));
    expect(file.metadata.model).toBe('DNABERT-S');
    expect(JSON.parse(file.metadata.config)).toMatchObject({ numLayers: 2, hiddenSize: 64, numHeads: 4 });
    expect(maxRowDiff(file, means)).toBeLessThanOrEqual(1e-5);

    const summary = JSON.parse(readFileSync(summaryPath, 'utf8'));
    const tokens = (JSON.parse(readFileSync(join(tinyDir, 'inputs.json'), 'utf8')) as { token_ids: number[][] }).token_ids
      .reduce((n, ids) => n + ids.length, 0);
    expect(summary).toMatchObject({ sequences: sequences.length, tokens, tokenBudget: 120, backend: 'cpu', precision: 'fp32', oomSplits: 0, dim: 64 });
    expect(summary.batches).toBeGreaterThan(2);
    expect(summary.packingEfficiency).toBeGreaterThan(0);
    expect(summary.packingEfficiency).toBeLessThanOrEqual(1);
    for (const key of ['seconds', 'sequencesPerSecond', 'tokensPerSecond']) expect(summary[key]).toBeGreaterThan(0);
  });

  it('rejects a missing model and an incomplete model folder: exit 2, names the path, no output', () => {
    const output = join(dir, 'x.safetensors');
    const input = join(dir, 'dna.fa');
    const missing = runCli(['embed', 'dnabert', '--model', join(dir, 'nope'), '--input', input, '--output', output, '--backend', 'cpu']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/nope: model not found/);
    const noTokenizer = join(dir, 'no-tokenizer');
    mkdirSync(noTokenizer);
    copyFileSync(join(tinyDir, 'config.json'), join(noTokenizer, 'config.json'));
    copyFileSync(join(tinyDir, 'model.safetensors'), join(noTokenizer, 'model.safetensors'));
    const incomplete = runCli(['embed', 'dnabert', '--model', noTokenizer, '--input', input, '--output', output, '--backend', 'cpu']);
    expect(incomplete.status).toBe(2);
    expect(incomplete.stderr).toMatch(/no-tokenizer: not a DNABERT model folder; missing tokenizer\.json/);
    expect(existsSync(output)).toBe(false);
  });

  it('rejects an empty FASTA and an empty record: exit 2, clear message, no output or temp file', () => {
    const empty = join(dir, 'empty.fa');
    writeFileSync(empty, '');
    const output = join(dir, 'empty.safetensors');
    const r = runCli(['embed', 'dnabert', '--model', tinyDir, '--input', empty, '--output', output, '--backend', 'cpu']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/empty\.fa: no FASTA records/);
    expect(existsSync(output)).toBe(false);

    const blank = join(dir, 'blank.fa');
    writeFileSync(blank, '>good\nACGTACGT\n>hollow record\n\n>after\nGATTACA\n');
    const r2 = runCli(['embed', 'dnabert', '--model', tinyDir, '--input', blank, '--output', output, '--backend', 'cpu', '--quiet']);
    expect(r2.status).toBe(2);
    expect(r2.stderr).toMatch(/blank\.fa: record 2 \(>hollow\): empty sequence; expected at least one nucleotide/);
    expect(existsSync(output)).toBe(false);
    expect(tempLeftovers(dir)).toEqual([]);
  });

  it('rejects a missing input and a bad token budget with exit 2', () => {
    const output = join(dir, 'x.safetensors');
    const noInput = runCli(['embed', 'dnabert', '--model', tinyDir, '--input', join(dir, 'absent.fa'), '--output', output]);
    expect(noInput.status).toBe(2);
    expect(noInput.stderr).toMatch(/absent\.fa: input FASTA not found/);
    const badBudget = runCli(['embed', 'dnabert', '--model', tinyDir, '--input', join(dir, 'dna.fa'), '--output', output, '--token-budget', '2']);
    expect(badBudget.status).toBe(2);
    expect(badBudget.stderr).toMatch(/--token-budget/);
    expect(existsSync(output)).toBe(false);
  });
});
