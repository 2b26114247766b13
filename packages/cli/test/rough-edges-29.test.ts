// Rough edges of issue 29 through the built CLI: --out-dir under /proc (bounded in time), help texts, the done
// line's grammar, prep's output names for a gzip input, and the progress ETA before there is a rate.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { StageCounter } from '../src/progress/progress-reporter.js';
import { bin, runCli, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'rough-edges-29-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const demo = join(testData, 'demo-models');
const small = join(testData, 'e2e', 'test_fixed_500bp', 'test_fixed_500bp.fa');

describe.runIf(existsSync('/proc/self'))('--out-dir under /proc', () => {
  // Node 20's recursive mkdir spun at 90% CPU forever there; now one line, exit 2, within seconds.
  it.each([
    ['prep', ['prep', small, '--out-dir', '/proc/x']],
    ['predict', ['predict', small, '--models-dir', demo, '--backend', 'cpu', '--quiet', '--out-dir', '/proc/x']],
  ])('%s: one line, exit 2, in bounded time', (_label, args) => {
    const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30_000 });
    expect(r.error).toBeUndefined(); // not killed by the timeout
    expect(r.stderr.trim().split('\n')).toEqual(['virnucpro: --out-dir /proc/x: cannot create or write this folder: a folder on its path cannot be created (a read-only or vanished location?)']);
    expect(r.status).toBe(2);
  });
});

describe('help texts', () => {
  it('predict marks --out-dir required; merge shows no [default: []]; no internal stage numbers', () => {
    expect(runCli(['predict', '--help']).stdout).toMatch(/--out-dir[\s\S]*\[required: here, or out-dir: in --config\]/);
    expect(runCli(['merge', '--help']).stdout).not.toContain('[default: []]');
    for (const command of [[], ['classify'], ['prep']]) expect(runCli([...command, '--help']).stdout).not.toMatch(/stages? \d/);
  });
});

describe('grammar and progress', () => {
  it('predict on one record says "1 sequence"', () => {
    const input = join(tmp, 'one.fa');
    writeFileSync(input, readFileSync(small, 'utf8').split(/\n(?=>)/)[0] + '\n');
    const r = runCli(['predict', input, '--models-dir', demo, '--backend', 'cpu', '--out-dir', join(tmp, 'one-out')]);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/done: 1 sequence, \d+ chunks?, \d+ frames? in/);
  });

  it('the ETA is unknown until there is a rate', () => {
    let now = 0;
    const counter = new StageCounter('frames', 'frames', () => now, 100);
    now = 5000;
    expect(counter.eta).toBe('?');
    counter.done = 25;
    expect(counter.eta).toBe('15s');
  });
});

describe('prep of a gzip file', () => {
  it('names the outputs after the file the original would have read (NC_008253.fna.gz -> NC_008253.fna_…)', () => {
    const input = join(tmp, 'NC_008253.fna.gz');
    writeFileSync(input, gzipSync(readFileSync(small)));
    copyFileSync(small, join(tmp, 'NC_008253.fna'));
    const gz = runCli(['prep', input, '--out-dir', join(tmp, 'gz'), '--quiet']);
    expect(gz.status).toBe(0);
    const plain = runCli(['prep', join(tmp, 'NC_008253.fna'), '--out-dir', join(tmp, 'plain'), '--quiet']);
    expect(gz.stdout.replaceAll(join(tmp, 'gz'), 'D')).toBe(plain.stdout.replaceAll(join(tmp, 'plain'), 'D'));
    expect(existsSync(join(tmp, 'gz', 'NC_008253.fna_chunked500.fa'))).toBe(true);
  });
});
