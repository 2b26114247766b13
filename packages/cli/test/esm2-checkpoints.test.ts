// ESM-2 folders saved by transformers 5 (test-data/esm2-transformers5, copied from the shared fixtures) through
// every command that takes an ESM-2 model: embed esm2 matches the fixture's means, convert esm2 reads them, and
// predict --esm gives the same bytes as the converted artifact (which embed shows equal to the fixture). A
// checkpoint that cannot be read is one line, exit 2, from every command.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSafetensors, writeSafetensors } from '@virnucpro/weights';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedMeans, maxRowDiff, readEmbeddings, runCli, testData } from './cli-harness.js';

const t5 = join(testData, 'esm2-transformers5');
const e2e = join(testData, 'e2e');
const tmp = mkdtempSync(join(tmpdir(), 'esm2-checkpoints-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const proteins = join(tmp, 'proteins.faa');
const sequences = (JSON.parse(readFileSync(join(t5, 'inputs.json'), 'utf8')) as { sequences: string[] }).sequences;
const dna = join(e2e, 'test_with_orfs', 'test_with_orfs.fa');

beforeAll(async () => {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(proteins, sequences.map((s, i) => `>p${i}\n${s}\n`).join(''));
});

const predict = (esm: string, out: string) =>
  runCli(['predict', dna, '--esm', esm, '--dnabert', join(e2e, 'dnabert-tiny'), '--mlp', join(e2e, 'mlp.pth'), '--length', '500', '--backend', 'wasm', '--quiet', '--out-dir', out]);

describe.each(['masked-lm', 'base'])('transformers 5 %s folder', (folder) => {
  it('embed esm2 writes the fixture means (fp32 tolerance)', async () => {
    const output = join(tmp, `${folder}.safetensors`);
    const r = runCli(['embed', 'esm2', '--model', join(t5, folder), '--input', proteins, '--output', output, '--backend', 'wasm', '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const file = await readEmbeddings(output);
    expect(file.shape).toEqual([sequences.length, 64]);
    expect(maxRowDiff(file, await expectedMeans(join(t5, 'expected.safetensors'), sequences.length))).toBeLessThanOrEqual(1e-5);
  });

  it('convert esm2 reads it, and predict --esm gives the bytes of the converted artifact', async () => {
    const artifact = join(tmp, `${folder}-converted`);
    const c = runCli(['convert', 'esm2', join(t5, folder), artifact, '--quiet']);
    expect(c.stderr).toBe('');
    expect(c.status).toBe(0);
    const embedded = join(tmp, `${folder}-converted.safetensors`);
    expect(runCli(['embed', 'esm2', '--model', artifact, '--input', proteins, '--output', embedded, '--backend', 'wasm', '--quiet']).status).toBe(0);
    expect(maxRowDiff(await readEmbeddings(embedded), await expectedMeans(join(t5, 'expected.safetensors'), sequences.length))).toBeLessThanOrEqual(1e-5);
    const direct = predict(join(t5, folder), join(tmp, `${folder}-predict`));
    expect(direct.stderr).toBe('');
    expect(direct.status).toBe(0);
    const viaArtifact = predict(artifact, join(tmp, `${folder}-predict-artifact`));
    expect(viaArtifact.status).toBe(0);
    for (const file of ['prediction_results.txt', 'prediction_results_highestscore.csv']) {
      const got = readFileSync(join(tmp, `${folder}-predict`, file), 'utf8');
      expect(got.split('\n').length).toBeGreaterThan(2);
      expect(got).toBe(readFileSync(join(tmp, `${folder}-predict-artifact`, file), 'utf8'));
    }
  });
});

describe('an ESM-2 checkpoint that cannot be read', () => {
  let broken: string;
  beforeAll(async () => {
    broken = join(tmp, 'broken');
    cpSync(join(t5, 'masked-lm'), broken, { recursive: true });
    const { tensors } = await readSafetensors(join(t5, 'masked-lm', 'model.safetensors'));
    tensors.delete('esm.encoder.layer.0.attention.self.query.weight');
    await writeSafetensors(join(broken, 'model.safetensors'), tensors);
  });
  const message =
    /^virnucpro: cannot load the ESM-2 model .*broken: .*model\.safetensors: recognised the Hugging Face transformers 5, EsmForMaskedLM \(esm\. prefix\) layout of ESM-2, but esm\.encoder\.layer\.0\.attention\.self\.query\.weight is missing/;

  it.each([
    ['embed esm2', () => ['embed', 'esm2', '--model', broken, '--input', proteins, '--output', join(tmp, 'x.safetensors'), '--backend', 'cpu']],
    ['convert esm2', () => ['convert', 'esm2', broken, join(tmp, 'x-converted')]],
    ['predict --esm', () => ['predict', dna, '--esm', broken, '--dnabert', join(e2e, 'dnabert-tiny'), '--mlp', join(e2e, 'mlp.pth'), '--length', '500', '--backend', 'cpu', '--quiet', '--out-dir', join(tmp, 'x-out')]],
  ])('%s: one line naming the layout and the missing tensor, exit 2', (_label, args) => {
    const r = runCli(args());
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(r.status).toBe(2);
  });
});
