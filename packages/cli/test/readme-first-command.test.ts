// The README's first command, run a second time, works as the first time did (issue 48: it failed on the
// non-empty demo-out). It runs in a scratch folder that links test-data, so the repository gets no demo-out.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bin, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'readme-first-command-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("the README's first command", () => {
  it('is two set-up commands and the demo predict, which can be run again', () => {
    const readme = readFileSync(join(testData, '..', 'README.md'), 'utf8');
    const firstLine = /```sh\n(.*)\n/.exec(readme)![1];
    const steps = firstLine.split(' && ');
    expect(steps.slice(0, 2)).toEqual(['npm ci', 'npm run build']);
    // `npx virnucpro` is this package's launcher; the arguments are what is checked (none needs shell quoting).
    const [npx, program, ...args] = steps[2].split(' ');
    expect([npx, program, args[0]]).toEqual(['npx', 'virnucpro', 'predict']);
    symlinkSync(testData, join(tmp, 'test-data'));
    for (const run of ['first', 'second']) {
      const r = spawnSync(process.execPath, [bin, ...args, '--quiet'], { cwd: tmp, encoding: 'utf8' });
      expect([run, r.status, r.stderr]).toEqual([run, 0, '']);
    }
    expect(readFileSync(join(tmp, 'demo-out', 'prediction_results.txt'), 'utf8').split('\n').length).toBeGreaterThan(10);
  });
});
