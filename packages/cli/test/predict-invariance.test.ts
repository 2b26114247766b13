// Batch invariance end to end (docs/architecture.md, "Batch invariance"; issue 27): `virnucpro predict` on the wasm
// backend with models of odd shapes on a mixed input (test/invariance-fixture.ts) gives byte-identical result files
// however the work is cut: one run, every record alone in its shard + merge, two worker processes, another token
// budget, a small packing window; killed at 10 points and resumed is predict-invariance-kill.test.ts (it races the
// run, so it runs alone). Each cut puts every frame in other batches, beside other neighbours, at other offsets;
// before attentionLength (main at b76712f) such cuts moved scores in the 7th–8th digit.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.js';
import { setUpInvarianceRun, summary, type InvarianceRun } from './invariance-fixture.js';

const tmp = mkdtempSync(join(tmpdir(), 'predict-invariance-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let run: InvarianceRun;
beforeAll(() => {
  run = setUpInvarianceRun(tmp);
});

/** Runs predict in the background; resolves with its exit code and stderr. */
function predictAsync(out: string, ...extra: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, run.args(out, ...extra), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

describe('virnucpro predict on wasm, odd model shapes: the same bytes however the work is cut', () => {
  it('every record alone in its shard (16 shards of the 15 records, one empty) + merge', async () => {
    // More shards than records: the longest record goes to the lightest shard, so each record is alone (as in
    // 30 shards, which this test ran before: the same cut, with 14 more empty shards).
    const count = 16;
    const shards = Array.from({ length: count }, (_, k) => join(tmp, `shard-${k + 1}`));
    for (let k = 0; k < shards.length; k += 2) {
      const runs = await Promise.all(shards.slice(k, k + 2).map((dir, j) => predictAsync(dir, '--shard', `${k + j + 1}/${count}`)));
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
    }
    expect(shards.map((dir) => summary(dir).shard.records).sort()).toEqual([0, ...Array<number>(15).fill(1)]);
    const merged = join(tmp, 'merged');
    const r = runCli(['merge', ...shards, '--out-dir', merged, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    run.expectSameOutputs(merged);
  });

  it('two worker processes', () => {
    const out = join(tmp, 'workers-2');
    const r = spawnSync(process.execPath, run.args(out, '--workers', '2'), { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(summary(out).workers).toBe(2);
    run.expectSameOutputs(out);
  });

  it('another token budget (every batch cut differently)', () => {
    const out = join(tmp, 'budget-300');
    const r = spawnSync(process.execPath, run.args(out, '--token-budget', '300'), { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(summary(out).batches).toBeGreaterThan(summary(run.single).batches);
    run.expectSameOutputs(out);
  });

  it('a small packing window (the emptiest batch of a window is carried over: its frames go with the next window)', () => {
    const out = join(tmp, 'window-40');
    const r = spawnSync(process.execPath, run.args(out, '--pack-window', '40', '--token-budget', '1000'), { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(summary(out).packingEfficiency).toBeGreaterThan(0.9);
    run.expectSameOutputs(out);
  });
});
