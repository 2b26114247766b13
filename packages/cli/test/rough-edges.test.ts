// Rough edges of issue 15 point 9, through the built CLI: the version, --help wrapping, and an --out-dir that
// cannot be a folder.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandLine } from '../src/command-line.js';
import { PREDICT_OPTIONS } from '../src/config/predict-options.js';
import { bin, runCli, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'rough-edges-'));
afterAll(() => {
  chmodSync(tmp, 0o755);
  rmSync(tmp, { recursive: true, force: true });
});
const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const predict = (outDir: string) =>
  runCli(['predict', join(testData, 'lambda_virus.fa'), '--models-dir', join(testData, 'demo-models'), '--backend', 'cpu', '--quiet', '--out-dir', outDir]);

describe('virnucpro version', () => {
  it.each([['-V'], ['--version'], ['version']])('%s prints the version and exits 0', (arg) => {
    const r = runCli([arg]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
    expect(r.stderr).toBe('');
  });
});

describe('virnucpro --help', () => {
  it('wraps at the terminal width (COLUMNS when not a terminal) without cutting words', () => {
    const r = spawnSync(process.execPath, [bin, 'predict', '--help'], { encoding: 'utf8', env: { ...process.env, COLUMNS: '100' } });
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(100);
    const words = new Set(r.stdout.replace(/\[/g, ' [').split(/\s+/));
    const cut = PREDICT_OPTIONS.filter((spec) => spec.key !== 'input').flatMap((spec) => spec.description.split(/\s+/)).filter((w) => !words.has(w));
    expect(cut).toEqual([]);
  });
});

describe('virnucpro predict --out-dir that cannot be a folder', () => {
  it('is a file: exit 2, one line, the file untouched', () => {
    const file = join(tmp, 'results.txt');
    writeFileSync(file, 'mine\n');
    const r = predict(file);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([`virnucpro: --out-dir ${file} is a file, not a folder: name a folder (it is created if missing)`]);
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
  });

  it('is inside a file: exit 2, one line naming the file', () => {
    const file = join(tmp, 'plain-file');
    writeFileSync(file, '');
    const r = predict(join(file, 'sub', 'out'));
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([`virnucpro: --out-dir ${join(file, 'sub', 'out')} is inside ${file}, which is a file, not a folder: name a folder (it is created if missing)`]);
  });

  it('is in a location that cannot be written: exit 2, one line, nothing created', () => {
    // Not root: a folder without write permission. Root ignores permissions: /sys, which does not take new folders.
    let outDir: string;
    if (process.getuid?.() !== 0) {
      const locked = join(tmp, 'locked');
      mkdirSync(locked);
      chmodSync(locked, 0o555);
      outDir = join(locked, 'out');
    } else {
      outDir = join('/sys', `virnucpro-test-${process.pid}`, 'out');
    }
    const r = predict(outDir);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^virnucpro: --out-dir ${outDir}: cannot create or write this folder: (permission denied|operation not permitted|the file system is read-only|a folder on its path)`));
    expect(existsSync(outDir)).toBe(false);
  });
});

describe('virnucpro predict: a sequence with no stop-free frame', () => {
  it('is `unscored` in sequence_summary.tsv (no evidence, not `others`), with empty score fields, not nan', () => {
    // TTAA repeated has a stop in all six frames (TAA forward and, being its own reverse complement, reverse).
    const input = join(tmp, 'stops.fa');
    writeFileSync(input, `>all_stops\n${'TTAA'.repeat(125)}\n`);
    const outDir = join(tmp, 'out-stops');
    const r = runCli(['predict', input, '--models-dir', join(testData, 'demo-models'), '--backend', 'cpu', '--quiet', '--out-dir', outDir]);
    expect(r.status).toBe(0);
    expect(readFileSync(join(outDir, 'prediction_results.txt'), 'utf8').trim().split('\n')).toHaveLength(1);
    expect(readFileSync(join(outDir, 'sequence_summary.tsv'), 'utf8')).toBe(
      'Sequence_ID\tlength\tchunks\tscored_chunks\tviral_chunks\tfraction_viral\tregions\tviral_bases\tbest_virus_score\tcall\tfraction_n\n' +
        'all_stops\t500\t1\t0\t0\t\t0\t0\t\tunscored\t0.0000\n',
    );
    expect(readFileSync(join(outDir, 'chunk_scores.tsv'), 'utf8').split('\n')[1]).toBe('all_stops\tall_stops_chunk_1\t1\t500\t0\t\t\tunscored');
  });
});

describe('virnucpro predict with a truncated model file', () => {
  // Each model in turn cut to half its size in a copy of the demo models: exit 2, one line naming the file.
  const cases = [
    ['ESM-2 model', 'esm2-demo/model.safetensors', []],
    ['DNABERT-S model', 'dnabert-s-demo/model.safetensors', []],
    ['MLP', 'mlp-demo-500.safetensors', []],
    ['ESM-2 model', 'esm2-demo/model.safetensors', ['--workers', '1']],
    ['DNABERT-S model', 'dnabert-s-demo/model.safetensors', ['--workers', '1']],
  ] as const;
  it.each(cases)('%s (%s) %j: exit 2, one line naming the file, no output folder', (_model, file, extra) => {
    const models = mkdtempSync(join(tmp, 'models-'));
    cpSync(join(testData, 'demo-models'), models, { recursive: true });
    const bytes = readFileSync(join(models, file));
    writeFileSync(join(models, file), bytes.subarray(0, bytes.length >> 1));
    const outDir = join(models, 'out');
    const r = runCli(['predict', join(testData, 'lambda_virus.fa'), '--models-dir', models, '--backend', 'cpu', '--quiet', '--out-dir', outDir, ...extra]);
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^virnucpro: cannot load the ${_model} ${models}/`));
    expect(lines[0]).toContain(join(models, file));
    expect(lines[0]).toContain('file truncated?');
    expect(existsSync(outDir)).toBe(false);
  });
});

describe('virnucpro predict with the demo models', () => {
  // The download as this test starts the program (node and the script), so that it runs when pasted (models.test.ts pastes one).
  const note = (dir: string) => `virnucpro: note: the demo models in ${dir} have random weights; their virus/others calls mean nothing (real models: \`${commandLine(['models', 'download'], { argv: [process.execPath, bin], execPath: process.execPath, env: process.env })}\`)`;
  const lines = (stderr: string) => stderr.trim().split('\n');
  const small = join(testData, 'e2e', 'test_fixed_500bp', 'test_fixed_500bp.fa');

  it('reminds once on stderr that their calls mean nothing (found by the DEMO-RANDOM-WEIGHTS marker)', () => {
    const demo = join(testData, 'demo-models');
    const r = runCli(['predict', small, '--models-dir', demo, '--backend', 'cpu', '--out-dir', join(tmp, 'out-demo')]);
    expect(r.status).toBe(0);
    expect(lines(r.stderr).filter((l) => l.includes('random weights'))).toEqual([note(demo.replace(/\/$/, ''))]);
    // run_summary.json says so too (the report's warning banner reads it).
    expect(JSON.parse(readFileSync(join(tmp, 'out-demo', 'run_summary.json'), 'utf8')).demoModels).toBe(true);
    // Named file by file (--esm/--dnabert/--mlp) they are recognised too.
    const direct = runCli([
      'predict', small, '--esm', join(demo, 'esm2-demo'), '--dnabert', join(demo, 'dnabert-s-demo'), '--mlp', join(demo, 'mlp-demo-500.safetensors'),
      '--backend', 'cpu', '--out-dir', join(tmp, 'out-demo-direct'),
    ]);
    expect(direct.status).toBe(0);
    expect(lines(direct.stderr).filter((l) => l.includes('random weights'))).toHaveLength(1);
  });

  it('says nothing for models without the marker', () => {
    const e2e = join(testData, 'e2e');
    const r = runCli([
      'predict', small, '--esm', join(e2e, 'esm2-tiny'), '--dnabert', join(e2e, 'dnabert-tiny'), '--mlp', join(e2e, 'mlp.pth'),
      '--length', '500', '--backend', 'cpu', '--out-dir', join(tmp, 'out-tiny'),
    ]);
    expect(r.status).toBe(0);
    expect(r.stderr).not.toContain('random weights');
    expect(JSON.parse(readFileSync(join(tmp, 'out-tiny', 'run_summary.json'), 'utf8'))).not.toHaveProperty('demoModels');
  });
});

describe('virnucpro predict with VIRNUCPRO_MLP_THREADS', () => {
  const run = (outDir: string, threads: string) =>
    spawnSync(process.execPath, [bin, 'predict', join(testData, 'lambda_virus.fa'), '--models-dir', join(testData, 'demo-models'), '--backend', 'wasm', '--quiet', '--out-dir', outDir], {
      encoding: 'utf8',
      env: { ...process.env, VIRNUCPRO_MLP_THREADS: threads },
    });

  it('that is not a whole number: exit 2, one line, nothing created', () => {
    const out = join(tmp, 'mlp-threads-bad');
    const r = run(out, 'many');
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual(["virnucpro: VIRNUCPRO_MLP_THREADS must be a whole number ≥ 0 (0: the MLP on the main thread), got 'many'"]);
    expect(existsSync(out)).toBe(false);
  });

  it('changes nothing in the results: 0 (main thread) and 3 threads write the same bytes', () => {
    const [a, b] = [join(tmp, 'mlp-threads-0'), join(tmp, 'mlp-threads-3')];
    expect(run(a, '0').status).toBe(0);
    expect(run(b, '3').status).toBe(0);
    for (const file of ['prediction_results.txt', 'prediction_results_highestscore.csv']) {
      const rows = readFileSync(join(a, file), 'utf8');
      expect(rows.split('\n').length).toBeGreaterThan(2);
      expect(readFileSync(join(b, file), 'utf8'), file).toBe(rows);
    }
  }, 120_000);
});
