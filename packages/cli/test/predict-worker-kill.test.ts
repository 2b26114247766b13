// One worker process of a `virnucpro predict --workers 2` run dies mid-run (SIGKILL, as when its GPU fails and
// the driver takes the process down): the pool restarts it and re-queues its unfinished batches, the run
// completes (exit 0) with outputs byte-identical to an undisturbed run on one worker (the one-GPU run of a
// multi-GPU run; also the quicker reference on a 2-core machine), nothing lost or computed twice in the
// result, and run_summary.json's workerStats record the restart. The runtime tests the pool's part
// (packages/runtime/test/pool.test.ts); this is what a user of the command sees. CPU workers stand in for GPUs:
// the pool treats every device alike.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, runNodeAsync, testData, childExit, untilWhileRunning } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'predict-worker-kill-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const OUTPUTS = ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv', 'viral_regions.tsv', 'viral_regions.bed'];
const input = join(tmp, 'lambda-x3.fa');
// Small batches (≈3 frames each) so that each worker holds a batch or two at any moment of the run.
const args = (out: string, workers: number) => [
  bin, 'predict', input, '--models-dir', join(testData, 'demo-models'), '--backend', 'cpu', '--workers', String(workers), '--token-budget', '512', '--out-dir', out,
];

interface WorkerStat {
  worker: number;
  device: string;
  batches: number;
  frames: number;
  restarts: number;
}
const summary = (out: string) => JSON.parse(readFileSync(join(out, 'run_summary.json'), 'utf8')) as { frames: number; workerStats: WorkerStat[] };

function childPids(pid: number): number[] {
  const ps = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  return ps.stdout.split('\n').map((s) => Number(s.trim())).filter((n) => n > 0);
}

describe('virnucpro predict --workers 2: one worker killed mid-run', () => {
  beforeAll(() => {
    // Two copies of the lambda genome, the second rotated (other chunk boundaries, so other frames): enough frames
    // that the run lasts several seconds on two CPU workers. (Three took 80–90 s of the 90-s limit in CI, where this
    // file shares two cores with the other files that kill runs.)
    const genome = readFileSync(join(testData, 'lambda_virus.fa'), 'utf8').split('\n').filter((l) => !l.startsWith('>')).join('');
    const half = Math.floor(genome.length / 2);
    const records = [0, 1].map((k) => `>lambda_rot${k}\n${genome.slice(k * half)}${genome.slice(0, k * half)}\n`);
    writeFileSync(input, records.join(''));
  });

  it('restarts the killed worker, re-queues its batches, completes with exit 0 and byte-identical outputs', async () => {
    // The undisturbed one-worker run goes alongside the disturbed one (it is compared with once both are done).
    const reference = join(tmp, 'reference');
    const referenceRun = runNodeAsync([...args(reference, 1), '--quiet']);
    const out = join(tmp, 'killed');
    const child = spawn(process.execPath, args(out, 2), { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, VIRNUCPRO_PROGRESS_INTERVAL: '0' } });
    const done = childExit(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const progress = () => [...stderr.matchAll(/predict: (\d+)\/(\d+) frames/g)].pop();
    const framesDone = () => Number(progress()?.[1] ?? 0);
    const total = () => Number(progress()?.[2] ?? Infinity); // the run's own count, on every progress line
    // A quarter of the way: both workers are loaded and busy, most of the work is still ahead.
    await untilWhileRunning(() => framesDone() >= total() / 4, 'a quarter of the frames', child, { detail: () => stderr });
    expect(total()).toBeGreaterThan(80);
    const workers = childPids(child.pid!);
    expect(workers).toHaveLength(2);
    const victim = workers[1];
    process.kill(victim, 'SIGKILL');
    const killedAt = framesDone();
    expect(killedAt).toBeLessThan(total()); // really mid-run
    expect(existsSync(join(out, 'run_summary.json'))).toBe(false);
    // The slot comes back as a new process while the run goes on, and the other worker was never disturbed.
    await untilWhileRunning(() => childPids(child.pid!).length === 2 && !childPids(child.pid!).includes(victim), 'the restarted worker', child, { detail: () => stderr });
    expect(childPids(child.pid!)).toContain(workers[0]);

    const { code } = await done;
    expect(code, stderr).toBe(0);
    // The user is told, once, which worker died, why, and what became of its batches.
    expect(stderr).toMatch(/virnucpro: warning: worker \d \(cpu:\d\) killed by SIGKILL; \d+ unfinished batch(es)? re-queued\n/);
    expect(stderr.match(/virnucpro: warning: restarting worker \d \(cpu:\d\) \(attempt 1\)\n/g)).toHaveLength(1);

    const r = await referenceRun;
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(summary(reference).workerStats.map((w) => [w.device, w.restarts])).toEqual([['cpu:0', 0]]);
    expect(summary(reference).frames).toBe(total());
    for (const file of OUTPUTS) expect(readFileSync(join(out, file)).equals(readFileSync(join(reference, file))), file).toBe(true);
    expect(readdirSync(out).sort()).toEqual(readdirSync(reference).sort());
    const stats = summary(out).workerStats;
    expect(summary(out).frames).toBe(total());
    expect(stats.map((w) => w.device)).toEqual(['cpu:0', 'cpu:1']);
    expect(stats.map((w) => w.restarts).sort()).toEqual([0, 1]);
    // Frames count once, where they were finished: the batches lost with the killed process were embedded again.
    expect(stats.reduce((sum, w) => sum + w.frames, 0)).toBe(total());
  }, 120_000); // ~25 s alone on 2 cores; in CI it shares them with the other files that kill runs
});
