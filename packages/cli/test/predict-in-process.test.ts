// The default mode (`--workers 0`: the models in a worker thread of the CLI's process), through the built
// launcher: SIGINT and SIGTERM exit within 2 s of the signal with the finished frames in a verified checkpoint;
// shards are committed on count and on time while the models compute; kill -9 at many points then --resume
// reproduces an undisturbed run byte for byte. predict-resume.test.ts covers the same with worker processes.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readShardIndex } from '@virnucpro/checkpoint';
import { runNodeAsync, childExit, untilWhileRunning } from './cli-harness.js';

const bin = fileURLToPath(new URL('../bin/virnucpro.js', import.meta.url));
const data = fileURLToPath(new URL('../../../test-data/', import.meta.url));
const input = join(data, 'lambda_virus.fa');
const tmp = mkdtempSync(join(tmpdir(), 'predict-in-process-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const OUTPUTS = ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv', 'viral_regions.tsv', 'viral_regions.bed'];
// Small batches (≈3 frames) and shards (4 frames): a run has many of both, so there is always work in flight.
const common = ['--models-dir', join(data, 'demo-models'), '--backend', 'cpu', '--token-budget', '512'];
const args = (out: string, ...extra: string[]) => [bin, 'predict', input, ...common, '--out-dir', out, ...(extra.includes('--checkpoint-every') ? [] : ['--checkpoint-every', '4']), ...extra];
const runSync = (out: string, ...extra: string[]) => spawnSync(process.execPath, args(out, ...extra), { encoding: 'utf8' });
const start = (out: string, ...extra: string[]) =>
  spawn(process.execPath, args(out, ...extra), { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, VIRNUCPRO_PROGRESS_INTERVAL: '0' } });

const checkpointDir = (out: string) => join(out, '.checkpoints');
const shardFiles = (out: string) => (existsSync(checkpointDir(out)) ? readdirSync(checkpointDir(out)).filter((f) => f.endsWith('.safetensors')) : []);
const manifest = (out: string) => JSON.parse(readFileSync(join(checkpointDir(out), 'manifest.json'), 'utf8')) as { shards: { file: string; count: number }[] };
/** Shards the manifest lists (0 before the checkpoint exists; the manifest is replaced atomically). */
const committedShards = (out: string) => (existsSync(join(checkpointDir(out), 'manifest.json')) ? manifest(out).shards.length : 0);
const summary = (out: string) => JSON.parse(readFileSync(join(out, 'run_summary.json'), 'utf8'));

function expectSameOutputs(out: string, reference: string): void {
  for (const file of OUTPUTS) expect(readFileSync(join(out, file)).equals(readFileSync(join(reference, file))), file).toBe(true);
  expect(readdirSync(out).sort()).toEqual(readdirSync(reference).sort());
}

/** Frames the progress lines (one per finished frame with VIRNUCPRO_PROGRESS_INTERVAL=0) say are done. */
function framesDone(stderr: string): number {
  const last = [...stderr.matchAll(/predict: (\d+)\/\d+ frames/g)].pop();
  return last ? Number(last[1]) : 0;
}

describe('virnucpro predict in the default mode (--workers 0): signals, checkpoints, resume', () => {
  const reference = join(tmp, 'reference');
  const budget = join(tmp, 'budget');
  let frames = 0;
  beforeAll(async () => {
    // The reference and the run at another token budget (the first test's) side by side: one core each.
    const [r, b] = await Promise.all([
      runNodeAsync(args(reference, '--quiet')),
      runNodeAsync([bin, 'predict', input, '--models-dir', join(data, 'demo-models'), '--backend', 'cpu', '--token-budget', '4096', '--out-dir', budget, '--quiet']),
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

  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${signal} mid-run exits ${code} within 2 s, the finished frames in a verified shard; --resume completes it exactly`, async () => {
      const out = join(tmp, signal);
      const child = start(out);
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

      const resumed = runSync(out, '--resume', '--quiet');
      expect(resumed.status, resumed.stderr).toBe(0);
      expect(summary(out).resumedSequences).toBe(storedFrames);
      expectSameOutputs(out, reference);
    });
  }

  it('--checkpoint-seconds writes a shard while the models compute, without the count trigger', async () => {
    const out = join(tmp, 'timed');
    const child = start(out, '--checkpoint-every', '100000', '--checkpoint-seconds', '1');
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
      const child = start(out);
      const done = childExit(child);
      await untilWhileRunning(() => committedShards(out) >= shards, `${shards} committed shard(s)`, child).catch(async (error: unknown) => {
        child.kill('SIGKILL');
        throw error;
      });
      child.kill('SIGKILL');
      expect((await done).signal).toBe('SIGKILL');
      expect(existsSync(join(out, 'run_summary.json'))).toBe(false);

      const resumed = await runNodeAsync(args(out, '--resume'));
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
