import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeOnednn } from '@virnucpro/tfjs-backend-onednn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedMeans, maxRowDiff, readEmbeddings, runCli, testData } from './cli-harness.js';

// The onednn CPU backend through the CLI, where libdnnl loads (CI installs it): the fixtures' reference means
// (fp32 tolerances), and the same bytes with --threads 1 and 2 and with any --token-budget (issue 31).
describe.skipIf(!probeOnednn().ok)('the onednn backend through the CLI', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'onednn-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['esm2', join(testData, 'esm2'), 'proteins.faa'],
    ['dnabert', join(testData, 'dnabert', 'tiny'), 'dna.fa'],
  ])('embed %s: the reference means of the fixture', async (model, fixture, name) => {
    const sequences = (JSON.parse(readFileSync(join(fixture, 'inputs.json'), 'utf8')) as { sequences: string[] }).sequences;
    const input = join(dir, name);
    writeFileSync(input, sequences.map((s, i) => `>s${i}\n${s}\n`).join(''));
    const output = join(dir, `${model}.safetensors`);
    const r = runCli(['embed', model, '--model', fixture, '--input', input, '--output', output, '--backend', 'onednn', '--token-budget', '120', '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const file = await readEmbeddings(output);
    expect(maxRowDiff(file, await expectedMeans(join(fixture, 'expected.safetensors'), sequences.length))).toBeLessThanOrEqual(1e-5);
  });

  it('embed esm2: the same bytes with --threads 1 and 2, at token budgets 64 and 4096', () => {
    // Proteins of 1–400 residues: a batch spans several of oneDNN's 128-row calls, at varying offsets.
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const proteins = Array.from({ length: 24 }, (_, i) => `>p${i}\n${Array.from({ length: 1 + Math.floor(next() * 400) }, () => 'LAGVSERTIDPKQNFYMHWC'[Math.floor(next() * 20)]).join('')}\n`);
    const input = join(dir, 'random.faa');
    writeFileSync(input, proteins.join(''));
    const bytes = [['1', '64'], ['2', '4096'], ['2', '300']].map(([threads, budget]) => {
      const output = join(dir, `t${threads}-b${budget}.safetensors`);
      const r = runCli(['embed', 'esm2', '--model', join(testData, 'esm2'), '--input', input, '--output', output,
        '--backend', 'onednn', '--threads', threads, '--token-budget', budget, '--quiet']);
      expect(r.status, r.stderr).toBe(0);
      return readFileSync(output);
    });
    expect(bytes[0].equals(bytes[1]), 'threads 1 budget 64 vs threads 2 budget 4096').toBe(true);
    expect(bytes[0].equals(bytes[2]), 'threads 1 budget 64 vs threads 2 budget 300').toBe(true);
  });

  it('predict: the same result files with --threads 1 and 2 and other token budgets', () => {
    const files = [['1', '256'], ['2', '4096']].map(([threads, budget]) => {
      const outDir = join(dir, `predict-${threads}-${budget}`);
      const r = runCli(['predict', join(testData, 'lambda_virus.fa'), '--models-dir', join(testData, 'demo-models'), '--out-dir', outDir,
        '--backend', 'onednn', '--threads', threads, '--token-budget', budget, '--quiet']);
      expect(r.status, r.stderr).toBe(0);
      return ['prediction_results.txt', 'prediction_results_highestscore.csv'].map((f) => readFileSync(join(outDir, f), 'utf8'));
    });
    expect(files[0][0].split('\n').length).toBeGreaterThan(10);
    expect(files[1]).toEqual(files[0]);
  });
});
