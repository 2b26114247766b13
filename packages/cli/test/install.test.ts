// The documented way to install the command anywhere: `node tools/pack-cli.mjs` makes one self-contained
// virnucpro-<version>.tgz, which `npm install -g` puts on a machine without the repository or registry access
// (here: a temporary prefix, --offline, run from a folder outside the repository with a minimal environment).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, testData } from './cli-harness.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'install-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const version = (JSON.parse(readFileSync(join(repo, 'packages/cli/package.json'), 'utf8')) as { version: string }).version;
const OUTPUTS = ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv', 'viral_regions.tsv', 'viral_regions.bed'];

/** The installed command, as a user on another machine runs it: only its prefix's bin and node on PATH. */
const installed = (...args: string[]) =>
  spawnSync(join(tmp, 'prefix', 'bin', 'virnucpro'), args, {
    cwd: tmp,
    encoding: 'utf8',
    // VIRNUCPRO_ONEDNN_LIB passes through: it is how a machine says where oneDNN is (or, set to a missing file, the
    // way to run this suite as on a machine without it), and the reference run below sees it too.
    env: {
      PATH: [join(tmp, 'prefix', 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
      HOME: tmp,
      ...(process.env.VIRNUCPRO_ONEDNN_LIB ? { VIRNUCPRO_ONEDNN_LIB: process.env.VIRNUCPRO_ONEDNN_LIB } : {}),
    },
  });
const demo = (out: string, ...extra: string[]) => [
  'predict', join(testData, 'lambda_virus.fa'), '--models-dir', join(testData, 'demo-models'), '--out-dir', out, '--quiet', ...extra,
];

describe('npm install -g of the packed CLI', () => {
  beforeAll(() => {
    const tarball = execFileSync(process.execPath, [join(repo, 'tools/pack-cli.mjs'), '--out', tmp], { cwd: repo, encoding: 'utf8' }).trim();
    expect(tarball).toBe(join(tmp, `virnucpro-${version}.tgz`));
    execFileSync('npm', ['install', '-g', tarball, '--prefix', join(tmp, 'prefix'), '--offline', '--no-audit', '--no-fund'], { cwd: tmp, stdio: 'pipe' });
  });

  it('gives a working virnucpro binary', () => {
    const r = installed('--version');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${version}\n`);
  });

  it('runs the demo with the same results as the repository, in-process and with a worker process', () => {
    // Default options (--backend auto): the installed copy must find the same backend (its wasm binaries too).
    const reference = join(tmp, 'reference');
    expect(spawnSync(process.execPath, [bin, ...demo(reference)]).status).toBe(0);
    const backend = (dir: string) => (JSON.parse(readFileSync(join(dir, 'run_summary.json'), 'utf8')) as { backend: string }).backend;
    for (const [name, extra] of [['in-process', []], ['worker', ['--workers', '1']]] as const) {
      const out = join(tmp, name);
      const r = installed(...demo(out, ...extra));
      expect(r.status, r.stderr).toBe(0);
      expect(backend(out), name).toBe(backend(reference));
      for (const file of OUTPUTS) expect(readFileSync(join(out, file)).equals(readFileSync(join(reference, file))), `${name}: ${file}`).toBe(true);
    }
  });
});
