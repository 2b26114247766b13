// `predict` says how long the run takes once a rate is measured (issue 31): the line is there, and its numbers are
// the run's own (frames and ESM-2 tokens as run_summary.json counts them; duration = tokens / rate). No timing.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bin, runCliAsync, runNodeAsync, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'predict-estimate-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const demo = join(testData, 'demo-models');
const small = join(testData, 'e2e', 'test_fixed_500bp', 'test_fixed_500bp.fa');

/** "1s", "1m01s", "3h02m" (formatDuration) back to seconds. */
function seconds(duration: string): number {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration);
  if (!m) throw new Error(`not a duration: ${duration}`);
  return 3600 * Number(m[1] ?? 0) + 60 * Number(m[2] ?? 0) + Number(m[3] ?? 0);
}

describe('predict estimates its duration', () => {
  it('once the second batch is timed: frames, tokens and the measured rate of this run', async () => {
    const out = join(tmp, 'out');
    // 4 frames of 168 tokens, 512-token batches: 2 batches, the first one warm-up, the second timed (over however
    // short a time: VIRNUCPRO_ESTIMATE_AFTER=0; a run's default is 10 s).
    const r = await runNodeAsync([bin, 'predict', small, '--models-dir', demo, '--backend', 'cpu', '--token-budget', '512', '--out-dir', out], {
      env: { ...process.env, VIRNUCPRO_ESTIMATE_AFTER: '0' },
    });
    expect(r.status).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.includes('estimated'));
    expect(lines).toHaveLength(1);
    const m = /^virnucpro: estimated ~(\S+) for ([\d,]+) frames? \(([\d,]+) ESM-2 tokens\) at ([\d,.]+) tokens\/s \(measured on this machine, after warm-up\); ~(\S+) left$/.exec(lines[0]);
    expect(m, lines[0]).not.toBeNull();
    const [, total, frames, tokens, rate, left] = m!;
    const summary = JSON.parse(readFileSync(join(out, 'run_summary.json'), 'utf8'));
    expect(Number(frames.replace(/,/g, ''))).toBe(summary.frames);
    expect(Number(tokens.replace(/,/g, ''))).toBe(summary.tokens.esm);
    expect(summary.batches).toBe(2);
    const expected = summary.tokens.esm / Number(rate.replace(/,/g, ''));
    // The rate is shown rounded (1 decimal, or whole from 100 tokens/s) and the duration to the second.
    expect(Math.abs(seconds(total) - expected)).toBeLessThanOrEqual(1 + 0.01 * expected);
    expect(seconds(left)).toBeLessThanOrEqual(seconds(total));
  });

  it('a run of one batch ends before there is a measured rate: no estimate made up', async () => {
    const r = await runCliAsync(['predict', small, '--models-dir', demo, '--backend', 'cpu', '--out-dir', join(tmp, 'one-batch')]);
    expect(r.status).toBe(0);
    expect(r.stderr).not.toContain('estimated');
  });
});
