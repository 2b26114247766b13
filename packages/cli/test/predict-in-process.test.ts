// The default mode (`--workers 0`: the models in a worker thread of the CLI's process), through the built
// launcher: SIGINT and SIGTERM exit within 2 s of the signal with the finished frames in a verified checkpoint, and
// --resume completes the run byte for byte (a bound in seconds: this file runs alone). The same mode killed at many
// points, and its shards on count and on time: predict-in-process-kill.test.ts; worker processes: predict-resume.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readShardIndex } from '@virnucpro/checkpoint';
import { runNodeAsync, childExit, untilWhileRunning } from './cli-harness.js';
import { checkpointDir, expectSameOutputs, framesDone, inProcessArgs, manifest, shardFiles, startInProcess, summary } from './in-process-run.js';

const tmp = mkdtempSync(join(tmpdir(), 'predict-in-process-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('virnucpro predict in the default mode (--workers 0): signals', () => {
  const reference = join(tmp, 'reference');
  let frames = 0;
  beforeAll(async () => {
    const r = await runNodeAsync(inProcessArgs(reference, '--quiet'));
    expect(r.status, r.stderr).toBe(0);
    frames = summary(reference).frames;
    expect(summary(reference).workers).toBe(0);
    expect(frames).toBeGreaterThan(20);
  });

  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${signal} mid-run exits ${code} within 2 s, the finished frames in a verified shard; --resume completes it exactly`, async () => {
      const out = join(tmp, signal);
      const child = startInProcess(out);
      const done = childExit(child);
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      // A count-triggered shard while the models compute, and a few more frames finished after it.
      await untilWhileRunning(() => shardFiles(out).length >= 1 && framesDone(stderr) >= 8, 'a shard and 8 finished frames', child);
      const finished = framesDone(stderr);
      const signalledAt = performance.now();
      child.kill(signal);
      const { code: exitCode, at } = await done;
      const seconds = (at - signalledAt) / 1000;
      expect(exitCode).toBe(code);
      expect(seconds).toBeLessThan(2);
      expect(stderr).toContain(`${signal}: saving finished results before exiting`);
      expect(readdirSync(out)).toEqual(['.checkpoints']); // no output file that could pass for a result
      const stored = manifest(out).shards;
      let storedFrames = 0;
      for (const shard of stored) {
        const { indices } = await readShardIndex(join(checkpointDir(out), shard.file));
        expect(indices.length).toBe(shard.count);
        storedFrames += indices.length;
      }
      expect(storedFrames).toBeGreaterThanOrEqual(finished);
      expect(storedFrames).toBeLessThan(frames);

      const resumed = spawnSync(process.execPath, inProcessArgs(out, '--resume', '--quiet'), { encoding: 'utf8' });
      expect(resumed.status, resumed.stderr).toBe(0);
      expect(summary(out).resumedSequences).toBe(storedFrames);
      expectSameOutputs(out, reference);
    });
  }

});
