// The default mode (`--workers 0`: the models in a worker thread of the CLI's process), through the built
// launcher: shards are committed on count and on time while the models compute; kill -9 at many points then
// --resume reproduces an undisturbed run byte for byte; another token budget gives the same bytes. The kills wait on
// the run's progress, not on a clock (with the other kill tests, after the other files). Signals, with their bound in
// seconds: predict-in-process.test.ts; worker processes: predict-resume.test.ts.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNodeAsync, childExit, untilWhileRunning } from './cli-harness.js';
import { OUTPUTS, committedShards, expectSameOutputs, framesDone, inProcessArgs, otherBudgetArgs, shardFiles, startInProcess, summary } from './in-process-run.js';

const tmp = mkdtempSync(join(tmpdir(), 'predict-in-process-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('virnucpro predict in the default mode (--workers 0): checkpoints, kills, resume', () => {
  const reference = join(tmp, 'reference');
  const budget = join(tmp, 'budget');
  let frames = 0;
  beforeAll(async () => {
    // The reference and the run at another token budget (the first test's) side by side: one core each.
    const [r, b] = await Promise.all([
      runNodeAsync(inProcessArgs(reference, '--quiet')),
      runNodeAsync(otherBudgetArgs(budget)),
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(b.status, b.stderr).toBe(0);
    frames = summary(reference).frames;
    expect(summary(reference).workers).toBe(0);
    expect(frames).toBeGreaterThan(20);
  });

  it('a frame comes out the same in any batch: other token budgets give byte-identical outputs', () => {
    // What makes a resume exact: its batches differ from an undisturbed run's (restored frames are skipped).
    expect(summary(budget).batches).toBeLessThan(summary(reference).batches);
    for (const file of OUTPUTS) expect(readFileSync(join(budget, file)).equals(readFileSync(join(reference, file))), file).toBe(true);
  });

  it('--checkpoint-seconds writes a shard while the models compute, without the count trigger', async () => {
    const out = join(tmp, 'timed');
    const child = startInProcess(out, '--checkpoint-every', '100000', '--checkpoint-seconds', '1');
    const done = childExit(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await untilWhileRunning(() => shardFiles(out).length >= 1, 'a time-triggered shard', child);
    expect(framesDone(stderr)).toBeLessThan(frames); // the run is still going
    child.kill('SIGKILL');
    await done;
  });

  it('kill -9 at 5 different points, then --resume: byte-identical outputs every time, frames restored', async () => {
    // committed shards (4 frames each) when the process is killed; two runs at a time (one core each): each is
    // killed on its own count of committed shards, whatever the pace
    const points = [1, 2, 4, 6, 8];
    const killAndResume = async (shards: number) => {
      const out = join(tmp, `killed-${shards}`);
      const child = startInProcess(out);
      const done = childExit(child);
      await untilWhileRunning(() => committedShards(out) >= shards, `${shards} committed shard(s)`, child).catch(async (error: unknown) => {
        child.kill('SIGKILL');
        throw error;
      });
      child.kill('SIGKILL');
      expect((await done).signal).toBe('SIGKILL');
      expect(existsSync(join(out, 'run_summary.json'))).toBe(false);

      const resumed = await runNodeAsync(inProcessArgs(out, '--resume'));
      expect(resumed.status, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/resuming: \d+ frames restored from \d+ checkpoint shard\(s\)/);
      const s = summary(out);
      expect(s.resumedSequences, `killed after ${shards} shard(s)`).toBeGreaterThanOrEqual(4 * shards);
      expect(s.resumedSequences).toBeLessThan(frames);
      expectSameOutputs(out, reference);
    };
    for (let i = 0; i < points.length; i += 2) await Promise.all(points.slice(i, i + 2).map(killAndResume));
  });
});
