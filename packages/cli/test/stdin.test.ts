// `virnucpro predict -` and `embed … --input -` read standard input (plain or gzip, detected from the content),
// through real pipes into the built CLI: the results equal those of the same input given as a file, byte for byte.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, runCli, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'stdin-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const input = join(testData, 'lambda_virus.fa');
const common = ['--models-dir', join(testData, 'demo-models'), '--backend', 'wasm', '--quiet'];
const RESULTS = ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv', 'viral_regions.tsv', 'viral_regions.bed'];
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs `producer | virnucpro ARGS` in a shell (a real pipe), with TMPDIR pointing at a folder of our own. */
function piped(producer: string, args: string[], tmpDir: string) {
  const command = `${producer} | ${q(process.execPath)} ${q(bin)} ${args.map(q).join(' ')}`;
  return spawnSync('sh', ['-c', command], { encoding: 'utf8', env: { ...process.env, TMPDIR: tmpDir } });
}

function expectSameResults(out: string, reference: string): void {
  for (const file of RESULTS) expect(readFileSync(join(out, file)).equals(readFileSync(join(reference, file))), file).toBe(true);
}

describe('virnucpro predict - (standard input)', () => {
  const reference = join(tmp, 'reference');
  beforeAll(() => {
    const r = runCli(['predict', input, ...common, '--out-dir', reference]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.each([
    ['plain', `cat ${q(input)}`, '-'],
    ['gzip', `gzip -c ${q(input)}`, '-'],
    ['plain, as /dev/stdin', `cat ${q(input)}`, '/dev/stdin'],
  ])('%s through a pipe (%s … | predict %s) equals the file run, and leaves no temporary copy', (name, producer, arg) => {
    const out = join(tmp, `out-${name.replace(/\W+/g, '-')}`);
    const spool = mkdtempSync(join(tmp, 'tmpdir-'));
    const r = piped(producer, ['predict', arg, ...common, '--out-dir', out], spool);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expectSameResults(out, reference);
    expect(JSON.parse(readFileSync(join(out, 'run_summary.json'), 'utf8')).input).toBe('-');
    expect(readdirSync(spool)).toEqual([]);
  });

  it('input: - in a YAML config (written as a user writes it, unquoted) reads the pipe too', () => {
    const out = join(tmp, 'out-config');
    const config = join(tmp, 'run.yaml');
    writeFileSync(config, `input: -   # standard input\nout-dir: ${out}\n`);
    const r = piped(`gzip -c ${q(input)}`, ['predict', '--config', config, ...common], tmp);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expectSameResults(out, reference);
    expect(JSON.parse(readFileSync(join(out, 'run_summary.json'), 'utf8')).input).toBe('-');
  });

  it('refuses what is not DNA on standard input, naming it', () => {
    const out = join(tmp, 'out-protein');
    const r = piped(`printf '>p\\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEK\\n'`, ['predict', '-', ...common, '--out-dir', out], tmp);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toMatch(/^virnucpro: standard input: line 1: record 'p' is not DNA/);
    expect(existsSync(out)).toBe(false);
  });
});

describe('virnucpro embed --input - (standard input)', () => {
  it('embed dnabert from a gzip pipe equals the file run', () => {
    const model = join(testData, 'demo-models', 'dnabert-s-demo');
    const lambda = readFileSync(input, 'utf8').split('\n').slice(1).join('');
    const small = join(tmp, 'small.fa');
    writeFileSync(small, [0, 1, 2].map((k) => `>r${k}\n${lambda.slice(k * 300, k * 300 + 150 + 50 * k)}\n`).join(''));
    const fromFile = join(tmp, 'file.safetensors');
    const fromPipe = join(tmp, 'pipe.safetensors');
    const a = runCli(['embed', 'dnabert', '--model', model, '--input', small, '--output', fromFile, '--backend', 'cpu', '--quiet']);
    expect(a.stderr).toBe('');
    expect(a.status).toBe(0);
    const spool = mkdtempSync(join(tmp, 'tmpdir-'));
    const b = piped(`gzip -c ${q(small)}`, ['embed', 'dnabert', '--model', model, '--input', '-', '--output', fromPipe, '--backend', 'cpu', '--quiet'], spool);
    expect(b.stderr).toBe('');
    expect(b.status).toBe(0);
    expect(readFileSync(fromPipe).equals(readFileSync(fromFile))).toBe(true);
    expect(readdirSync(spool)).toEqual([]);
  });
});
