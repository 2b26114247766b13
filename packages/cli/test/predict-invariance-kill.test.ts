// Batch invariance end to end, the part that races the run (docs/architecture.md, "Batch invariance"; issue 27):
// `virnucpro predict` on wasm with the odd-shaped models and mixed input of test/invariance-fixture.ts, killed
// (SIGKILL) at 10 points and resumed each time, gives the bytes of one undisturbed run. The other cuts (shards,
// workers, token budget, packing window) are predict-invariance.test.ts. Each kill must land before the run ends
// (the last, with about a tenth of the run left: 4 of 42 checkpoint shards; under a load of 8–10 on 2 cores the
// kills landed at most 2 shards past their targets), so it runs after the other files (vitest.config.ts: AFTER).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpInvarianceRun, summary, type InvarianceRun } from './invariance-fixture.js';

const tmp = mkdtempSync(join(tmpdir(), 'predict-invariance-kill-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let run: InvarianceRun;
beforeAll(() => {
  run = setUpInvarianceRun(tmp);
});

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

const checkpointShards = (out: string) =>
  existsSync(join(out, '.checkpoints')) ? readdirSync(join(out, '.checkpoints')).filter((f) => f.endsWith('.safetensors')).length : 0;

describe('virnucpro predict on wasm, odd model shapes: the same bytes however the work is cut', () => {
  it('killed (SIGKILL) at 10 points, resumed each time, then finished with --resume', async () => {
    const out = join(tmp, 'killed');
    const every = ['--checkpoint-every', '6'];
    const expectedShards = Math.ceil(summary(run.single).frames / 6);
    let kills = 0;
    for (let point = 1; point <= 10; point++) {
      const target = Math.floor((point * expectedShards) / 11);
      const child = spawn(process.execPath, run.args(out, ...every, ...(point > 1 ? ['--resume'] : [])), { detached: true, stdio: 'ignore' });
      const done = exited(child);
      let finished = false;
      void done.then(() => (finished = true));
      while (!finished && checkpointShards(out) < target) await new Promise((r) => setTimeout(r, 10));
      if (!finished) {
        process.kill(-child.pid!, 'SIGKILL');
        kills++;
      }
      await done;
      expect(existsSync(join(out, 'prediction_results.txt')), `run ${point} finished before its kill`).toBe(false);
    }
    expect(kills).toBe(10);
    const resumed = spawnSync(process.execPath, run.args(out, ...every, '--resume'), { encoding: 'utf8' });
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(summary(out).resumedSequences).toBeGreaterThan(0);
    run.expectSameOutputs(out);
  });
});
