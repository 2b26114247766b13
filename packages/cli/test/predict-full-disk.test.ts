// A full disk while predict writes its results, through the built launcher: the write fails naming the file,
// and no result file is left that could pass for a finished run (results are written under temporary names
// and renamed together at the end, run_summary.json last). The disk fills up through @virnucpro/atomic-file's
// test hook (VIRNUCPRO_TEST_FULL_DISK), since a test cannot mount a small file system.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bin, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'predict-full-disk-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const RESULTS = ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv', 'viral_regions.tsv', 'viral_regions.bed', 'run_summary.json'];
const predict = (out: string, env: Record<string, string> = {}, ...extra: string[]) =>
  spawnSync(
    process.execPath,
    [bin, 'predict', join(testData, 'lambda_virus.fa'), '--models-dir', join(testData, 'demo-models'), '--backend', 'wasm', '--out-dir', out, '--quiet', ...extra],
    { encoding: 'utf8', env: { ...process.env, ...env } },
  );

describe('virnucpro predict on a full disk', () => {
  it.each(['prediction_results.txt', 'sequence_summary.tsv', 'run_summary.json'])('writing %s fails naming it and leaves no result file', (name) => {
    const out = join(tmp, name);
    const r = predict(out, { VIRNUCPRO_TEST_FULL_DISK: name });
    expect(r.status).toBe(1);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(`virnucpro: cannot write ${join(out, name)}: no space left on the device (ENOSPC)`);
    // Finished frames may stay in the checkpoint (for --resume); nothing else, not even a temporary file.
    const left = existsSync(out) ? readdirSync(out) : [];
    expect(left.filter((f) => f !== '.checkpoints')).toEqual([]);
  });

  it('once there is room again, --resume completes the run from the checkpoint', () => {
    const out = join(tmp, 'run_summary.json');
    expect(readdirSync(out)).toEqual(['.checkpoints']);
    const r = predict(out, {}, '--resume');
    expect(r.status, r.stderr).toBe(0);
    const reference = join(tmp, 'reference');
    expect(predict(reference).status).toBe(0);
    for (const file of RESULTS.slice(0, 3)) expect(readFileSync(join(out, file)).equals(readFileSync(join(reference, file))), file).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'run_summary.json'), 'utf8')).resumedSequences).toBeGreaterThan(0);
  });
});
