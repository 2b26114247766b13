// Issue #28's acceptance: the pipeline package's README examples run as written (its exported operators composed as
// the README shows, and its one-call predict) on the e2e fixtures the README names, through the built packages as an
// installed user gets them, and write byte for byte the files `virnucpro predict` writes on the same input.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliAsync, testData } from './cli-harness.js';

const readme = readFileSync(fileURLToPath(new URL('../../predict/README.md', import.meta.url)), 'utf8');
const repoModules = fileURLToPath(new URL('../../../node_modules', import.meta.url));
const input = join(testData, 'e2e/test_with_orfs/test_with_orfs.fa');
const models = { esm: join(testData, 'e2e/esm2-tiny'), dnabert: join(testData, 'e2e/dnabert-tiny'), mlp: join(testData, 'e2e/mlp.pth') };
const FILES = ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv', 'viral_regions.tsv', 'viral_regions.bed'];
const dir = mkdtempSync(join(tmpdir(), 'vnp-predict-readme-'));
const cliOut = join(dir, 'cli');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The README's ```js block under `heading`, exactly as printed. */
function example(heading: string): string {
  const section = readme.split(/^## /m).find((s) => s.startsWith(heading));
  const code = section && /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error(`no js example under '## ${heading}' in packages/predict/README.md`);
  return code;
}

/**
 * Runs `code` as a module of a project folder that has the packages installed (the workspace's, so their built dist:
 * no source condition) and the repository's test-data/, which the examples read.
 */
function runExample(name: string, code: string): Promise<{ status: number | null; stdout: string; stderr: string; project: string }> {
  const project = join(dir, name);
  mkdirSync(project);
  symlinkSync(repoModules, join(project, 'node_modules'));
  symlinkSync(testData, join(project, 'test-data'));
  const file = join(project, `${name}.mjs`);
  writeFileSync(file, code);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr, project }));
  });
}

function expectSameFiles(out: string): void {
  for (const file of FILES) {
    const expected = readFileSync(join(cliOut, file));
    if (!file.startsWith('viral_regions')) expect(expected.toString().split('\n').length, file).toBeGreaterThan(2); // real rows
    expect(readFileSync(join(out, file)).equals(expected), file).toBe(true);
  }
}

beforeAll(async () => {
  const r = await runCliAsync(['predict', input, '--length', '500', '--esm', models.esm, '--dnabert', models.dnabert, '--mlp', models.mlp, '--backend', 'cpu', '--out-dir', cliOut, '--quiet']);
  expect(r.status, r.stderr).toBe(0);
}, 120_000);

describe('@virnucpro/predict README', () => {
  it("its operators composed as the README shows write what `virnucpro predict` writes, byte for byte", async () => {
    const r = await runExample('operators', example('The same, as the operators'));
    expect(r.status, r.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(join(cliOut, 'run_summary.json'), 'utf8'));
    expect(r.stdout.trim()).toBe(`${summary.frames} frames classified into predicted-by-operators`);
    expectSameFiles(join(r.project, 'predicted-by-operators'));
  }, 120_000);

  it("its one-call predict writes what `virnucpro predict` writes, byte for byte", async () => {
    const r = await runExample('one-call', example('One call'));
    expect(r.status, r.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(join(cliOut, 'run_summary.json'), 'utf8'));
    expect(r.stdout.trim()).toBe(`${summary.sequences} sequences, ${summary.chunks} chunks, ${summary.frames} frames in predicted`);
    expectSameFiles(join(r.project, 'predicted'));
  }, 120_000);
});
