// The Snakemake workflow in workflow/ (issue 14), run for real with the snakemake on PATH (Debian's package in
// CI: .ci/run installs it when it can): 4 shards, 2 jobs at a time, CPU and the demo models; every merged file
// byte-identical to one `virnucpro predict`; a shard job killed mid-way, then the workflow rerun, resumes that
// shard from its checkpoint and ends with the same files. Without snakemake the tests are skipped, loudly.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, runAsync, runCli, testData } from './cli-harness.js';
import { writeMultiRecordInput } from './multi-record-input.js';

const snakemake = spawnSync('snakemake', ['--version'], { encoding: 'utf8' });
const haveSnakemake = snakemake.status === 0;
if (!haveSnakemake) {
  console.warn(
    '\n*** SKIPPED: the Snakemake workflow tests (workflow/Snakefile) need `snakemake` on PATH, and it is not there. ' +
      'Install it (Debian/Ubuntu: apt-get install -y snakemake) to run them. ***\n',
  );
}

const workflow = fileURLToPath(new URL('../../../workflow/', import.meta.url));
const OUTPUTS = ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv', 'viral_regions.tsv', 'viral_regions.bed'];
const SHARDS = 4;
const tmp = mkdtempSync(join(tmpdir(), 'workflow-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const input = join(tmp, 'input.fa');
const single = join(tmp, 'single');
// `virnucpro` on PATH, as the workflow's default config expects it.
const pathDir = join(tmp, 'bin');
const env = { ...process.env, PATH: `${pathDir}:${process.env.PATH}` };
const summary = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/** snakemake over `workDir` with the local profile: 2 cores and 2 "GPUs" → 2 shard jobs at a time. */
function snakemakeArgs(workDir: string, predictArgs: string): string[] {
  return [
    '--snakefile', join(workflow, 'Snakefile'), '--profile', join(workflow, 'profiles', 'local'), '--directory', workDir,
    '--cores', '2', '--resources', 'gpu=2',
    '--config', `input=${input}`, `shards=${SHARDS}`, `models_dir=${join(testData, 'demo-models')}`, 'out_dir=out',
    `predict_args=${predictArgs}`, 'threads_per_job=1', 'gpus_per_job=1',
  ];
}

/** In the background: a run takes seconds, and a long spawnSync keeps vitest's worker from answering its runner. */
function runSnakemake(workDir: string, predictArgs = '--backend cpu') {
  return runAsync('snakemake', snakemakeArgs(workDir, predictArgs), { env });
}

function expectSameAsSingle(results: string): void {
  for (const file of OUTPUTS) expect(readFileSync(join(results, file)).equals(readFileSync(join(single, file))), file).toBe(true);
}

/** Largest number of shard jobs that ran at the same time, from their run summaries' start and finish times. */
function mostAtOnce(shardDirs: string[]): number {
  const spans = shardDirs.map((d) => summary(join(d, 'run_summary.json'))).map((s) => [Date.parse(s.startedAt), Date.parse(s.finishedAt)]);
  return Math.max(...spans.map(([start]) => spans.filter(([a, b]) => a <= start && start < b).length));
}

/** Checkpoint shards listed in a checkpoint's manifest (a shard file is only kept on --resume once listed). */
function listedCheckpointShards(dir: string): number {
  try {
    return (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { shards: unknown[] }).shards.length;
  } catch {
    return 0; // not written yet, or being replaced
  }
}

/**
 * The pid of the running `virnucpro predict --shard k/N` whose --out-dir is `outDir` in `workDir` (from /proc), if
 * any. The working folder matters: another run of this test at the same time has the same relative --out-dir.
 */
function predictPid(workDir: string, outDir: string, shard: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (!(args.some((a) => a.endsWith('/virnucpro')) && args.includes(shard) && args.includes(outDir))) continue;
    try {
      if (realpathSync(`/proc/${entry}/cwd`) === realpathSync(workDir)) return Number(entry);
    } catch {
      // ended meanwhile
    }
  }
  return undefined;
}

describe.skipIf(!haveSnakemake)(`workflow/Snakefile with ${haveSnakemake ? snakemake.stdout.trim() : 'no snakemake'}`, () => {
  beforeAll(() => {
    writeMultiRecordInput(input);
    mkdirSync(pathDir);
    symlinkSync(bin, join(pathDir, 'virnucpro'));
    const r = runCli(['predict', input, '--models-dir', join(testData, 'demo-models'), '--backend', 'cpu', '--quiet', '--out-dir', single]);
    expect(r.status, r.stderr).toBe(0);
  });

  it(`${SHARDS} shards, 2 jobs at a time, then merge: every output byte-identical to one predict run`, async () => {
    const work = join(tmp, 'run');
    const r = await runSnakemake(work);
    expect(r.status, r.stderr).toBe(0);
    expectSameAsSingle(join(work, 'out', 'results'));
    const shardDirs = Array.from({ length: SHARDS }, (_, i) => join(work, 'out', 'shards', String(i + 1)));
    expect(shardDirs.map((d) => summary(join(d, 'run_summary.json')).shard.index)).toEqual([1, 2, 3, 4]);
    expect(mostAtOnce(shardDirs)).toBe(2); // two at a time, never more
    const merged = summary(join(work, 'out', 'results', 'run_summary.json'));
    expect(merged.sequences).toBe(summary(join(single, 'run_summary.json')).sequences);
    // A second run finds everything up to date and changes nothing.
    const again = await runSnakemake(work);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout + again.stderr).toMatch(/Nothing to be done/);
    expectSameAsSingle(join(work, 'out', 'results'));
  });

  it('a shard job killed mid-way (kill -9), then the workflow rerun: it resumes from its checkpoint, same outputs', async () => {
    const work = join(tmp, 'killed');
    // One frame per batch and a checkpoint every 2 frames: the first checkpoint comes early in the job, which
    // leaves most of it to kill (and to resume) even on a slow machine.
    const predictArgs = '--backend cpu --token-budget 256 --checkpoint-every 2';
    const outDir = join('out', 'shards', '1');
    const child = spawn('snakemake', snakemakeArgs(work, predictArgs), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const checkpoints = join(work, outDir, '.checkpoints');
    const start = Date.now();
    let killed = false;
    while (!killed) {
      if (child.exitCode !== null) throw new Error(`snakemake ended before shard 1 wrote a checkpoint:\n${log}`);
      if (Date.now() - start > 60_000) throw new Error(`no checkpoint of shard 1 within 60 s:\n${log}`);
      const pid = predictPid(work, outDir, `1/${SHARDS}`);
      const shardsWritten = listedCheckpointShards(checkpoints);
      if (pid !== undefined && shardsWritten >= 1) {
        process.kill(pid, 'SIGKILL'); // like a node lost mid-job
        killed = true;
      } else await new Promise((r) => setTimeout(r, 10));
    }
    expect(await exited, log).not.toBe(0);
    const listedAtKill = listedCheckpointShards(checkpoints);
    expect(listedAtKill, log).toBeGreaterThanOrEqual(1);
    expect(existsSync(join(work, outDir, 'run_summary.json'))).toBe(false);
    expect(existsSync(join(work, 'out', 'results', 'run_summary.json'))).toBe(false);

    const rerun = await runAsync('snakemake', snakemakeArgs(work, predictArgs), { env });
    expect(rerun.status, rerun.stdout + rerun.stderr + readFileSync(join(work, 'out', 'logs', 'shard-1.log'), 'utf8')).toBe(0);
    expectSameAsSingle(join(work, 'out', 'results'));
    const resumed = summary(join(work, outDir, 'run_summary.json'));
    expect(resumed.resumedSequences).toBeGreaterThan(0); // frames came back from the checkpoint
    expect(readFileSync(join(work, 'out', 'logs', 'shard-1.log'), 'utf8')).toMatch(/resuming: \d+ frames restored/);
  });

  it('the SLURM profile: a dry run submits every shard job with one GPU, the merge stays local', () => {
    const args = snakemakeArgs(join(tmp, 'slurm-dry'), '--backend cuda').map((a) => (a.endsWith('/profiles/local') ? join(workflow, 'profiles', 'slurm') : a));
    const r = spawnSync('snakemake', [...args.filter((a) => a !== '--cores' && a !== '2' && a !== '--resources' && a !== 'gpu=2'), '--dry-run'], { encoding: 'utf8', env });
    expect(r.status, r.stderr).toBe(0);
    const jobs = (r.stdout + r.stderr).split(/\n\s*\n/);
    const shardJobs = jobs.filter((j) => /^\s*rule predict_shard:/m.test(j));
    expect(shardJobs).toHaveLength(SHARDS);
    for (const job of shardJobs) expect(job).toMatch(/resources: .*slurm_partition=gpu.*gpu=1.*slurm_extra='--gres=gpu:1'/);
    expect(jobs.some((j) => /^\s*localrule merge:/m.test(j))).toBe(true);
  });
});
