// Fault injection on the whole `virnucpro predict` command (the built launcher, 2 CPU worker processes):
// kill -9 of the process group then --resume, damaged checkpoint shards, a resume against another model or
// input, a non-empty --out-dir, and SIGTERM. The checkpoint and runtime packages test their own parts
// (shard verification, worker restarts); these tests check what a user sees: exit codes, messages, and
// outputs byte-identical to an undisturbed run.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeMlpVariant } from './mlp-variants.js';
import { childExit, untilWhileRunning } from './cli-harness.js';

const bin = fileURLToPath(new URL('../bin/virnucpro.js', import.meta.url));
const data = fileURLToPath(new URL('../../../test-data/', import.meta.url));
const input = join(data, 'lambda_virus.fa');
const tmp = mkdtempSync(join(tmpdir(), 'predict-resume-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const OUTPUTS = ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv', 'viral_regions.tsv', 'viral_regions.bed'];
// Small batches (≈3 frames) and shards (4 frames) so that a run has many of both. The demo MLP with its virus
// logit shifted calls lambda's chunks a mix of virus and others, so viral_regions.tsv has regions to compare.
const mixedMlp = join(tmp, 'mixed.safetensors');
beforeAll(async () => {
  await writeMlpVariant(mixedMlp, { virusLogitShift: 0.4 });
});
const common = ['--models-dir', join(data, 'demo-models'), '--mlp', mixedMlp, '--backend', 'cpu', '--token-budget', '512'];
const args = (out: string, ...extra: string[]) => [bin, 'predict', input, ...common, '--out-dir', out, ...extra];
const runSync = (out: string, ...extra: string[]) => spawnSync(process.execPath, args(out, ...extra), { encoding: 'utf8' });

const shardFiles = (out: string) => (existsSync(join(out, '.checkpoints')) ? readdirSync(join(out, '.checkpoints')).filter((f) => f.endsWith('.safetensors')) : []);
const manifest = (out: string) => JSON.parse(readFileSync(join(out, '.checkpoints', 'manifest.json'), 'utf8')) as { shards: { file: string; sha256: string; bytes: number; count: number }[] };
const summary = (out: string) => JSON.parse(readFileSync(join(out, 'run_summary.json'), 'utf8'));
const listing = (out: string) => readdirSync(out).sort();

function expectSameOutputs(out: string, reference: string): void {
  for (const file of OUTPUTS) expect(readFileSync(join(out, file)).equals(readFileSync(join(reference, file))), file).toBe(true);
  expect(readFileSync(join(reference, 'viral_regions.tsv'), 'utf8').split('\n').length).toBeGreaterThan(3); // regions, not only a header
  expect(listing(out)).toEqual(listing(reference));
}

/** Running (a zombie waiting for a parent that does not reap it counts as gone). */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

async function expectGone(pids: number[]): Promise<void> {
  const start = Date.now();
  while (pids.some(alive) && Date.now() - start < 5000) await new Promise((r) => setTimeout(r, 20));
  expect(pids.filter(alive)).toEqual([]);
}

function childPids(pid: number): number[] {
  const ps = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  return ps.stdout.split('\n').map((s) => Number(s.trim())).filter((n) => n > 0);
}

describe('virnucpro predict: interruption and resume', () => {
  // The undisturbed run every disturbed one is compared with.
  const reference = join(tmp, 'reference');
  let frames = 0;
  beforeAll(() => {
    const r = runSync(reference, '--workers', '2', '--checkpoint-every', '4', '--quiet');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    frames = summary(reference).frames;
    // The workers' own report: backend and precision (cpu: fp32), OOM splits per worker.
    expect(summary(reference)).toMatchObject({ backend: 'cpu', precision: 'fp32', oomSplits: 0 });
    expect(summary(reference).workerStats.map((w: { device: string; oomSplits: number }) => [w.device, w.oomSplits])).toEqual([['cpu:0', 0], ['cpu:1', 0]]);
    expect(frames).toBeGreaterThan(20);
    expect(readdirSync(join(reference, '.checkpoints'))).toEqual(['manifest.json']); // a complete run drops its shards
  });

  // A run killed once it has listed 3 shards: what the tests of damaged shards and refused resumes start from (a
  // complete run keeps no checkpoint).
  const interrupted = join(tmp, 'interrupted');
  beforeAll(async () => {
    const child = spawn(process.execPath, args(interrupted, '--workers', '2', '--checkpoint-every', '4', '--quiet'), { detached: true, stdio: 'ignore' });
    const done = childExit(child);
    await untilWhileRunning(() => existsSync(join(interrupted, '.checkpoints', 'manifest.json')) && manifest(interrupted).shards.length >= 3, 'three listed checkpoint shards', child);
    process.kill(-child.pid!, 'SIGKILL');
    await done;
  });

  it('kill -9 of the whole run mid-way, then --resume: byte-identical outputs, frames restored', async () => {
    const out = join(tmp, 'killed');
    const child = spawn(process.execPath, args(out, '--workers', '2', '--checkpoint-every', '4', '--quiet'), { detached: true, stdio: 'ignore' });
    const done = childExit(child);
    await untilWhileRunning(() => shardFiles(out).length >= 2, 'two checkpoint shards', child);
    const workers = childPids(child.pid!);
    process.kill(-child.pid!, 'SIGKILL'); // the launcher and its worker processes, like a crashed node
    expect((await done).signal).toBe('SIGKILL');
    expect(existsSync(join(out, 'prediction_results.txt'))).toBe(false); // really mid-way
    expect(workers.length).toBe(2);
    await expectGone(workers);

    const resumed = runSync(out, '--workers', '2', '--checkpoint-every', '4', '--resume');
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resuming: \d+ frames restored from \d+ checkpoint shard\(s\)/);
    const s = summary(out);
    expect(s.resumedFrames).toBeGreaterThan(0);
    expect(s.resumedFrames).toBeLessThan(frames);
    expect(s.resumedSequences).toBe(s.resumedFrames); // the first name of the count (it counts frames), kept for old readers
    expect(s.frames).toBe(frames);
    expectSameOutputs(out, reference); // also: no temp files of the killed run left behind
  });

  it('a corrupted and a truncated shard are detected, their frames recomputed, outputs identical', () => {
    const out = join(tmp, 'damaged');
    cpSync(interrupted, out, { recursive: true });
    const shards = manifest(out).shards;
    const kept = shards.reduce((sum, shard) => sum + shard.count, 0);
    expect(shards.length).toBeGreaterThanOrEqual(3);
    const [first, second] = shards;
    const bytes = readFileSync(join(out, '.checkpoints', first.file));
    bytes[bytes.length - 10] ^= 0xff; // one flipped byte inside the vectors
    writeFileSync(join(out, '.checkpoints', first.file), bytes);
    truncateSync(join(out, '.checkpoints', second.file), Math.floor(second.bytes / 2));

    const r = runSync(out, '--workers', '2', '--checkpoint-every', '4', '--resume');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`checkpoint shard ${first.file} discarded (sha256`);
    expect(r.stderr).toContain(`checkpoint shard ${second.file} discarded (size`);
    expect(summary(out).resumedSequences).toBe(kept - first.count - second.count);
    expectSameOutputs(out, reference);
  });

  it('refuses to resume with another model or another input (exit 2), leaving the checkpoint intact', () => {
    const out = join(tmp, 'mismatch');
    cpSync(interrupted, out, { recursive: true });
    const before = readFileSync(join(out, '.checkpoints', 'manifest.json'), 'utf8');
    const e2e = join(data, 'e2e');
    const otherModel = spawnSync(
      process.execPath,
      [bin, 'predict', input, '--esm', join(e2e, 'esm2-tiny'), '--dnabert', join(e2e, 'dnabert-tiny'), '--mlp', join(e2e, 'mlp.pth'), '--length', '500', '--backend', 'cpu', '--out-dir', out, '--resume'],
      { encoding: 'utf8' },
    );
    expect(otherModel.status).toBe(2);
    // One line per difference, not the two identities as JSON.
    const lines = otherModel.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^virnucpro: cannot resume: the checkpoint in .* was made with other models; what differs \(this run vs the checkpoint\):$/);
    expect(lines).toContain("  esm.name: esm2-tiny vs the checkpoint's esm2-demo");
    expect(lines.slice(1, -1).every((l) => /^ {2}(esm|dnabert|mlp)\.(name|files): [^{[]+$/.test(l))).toBe(true);
    expect(lines).toContain("  mlp.name: mlp.pth vs the checkpoint's mixed.safetensors"); // scores depend on the MLP too
    // --force is offered only as what it is: starting over, discarding the kept frames.
    expect(lines.at(-1)).toBe(`resume with the interrupted run's models to keep its work, or --force to start over, which discards the ${manifest(out).shards.reduce((n, s) => n + s.count, 0)} item(s) kept`);

    const otherInput = spawnSync(process.execPath, [bin, 'predict', join(e2e, 'test_with_orfs', 'test_with_orfs.fa'), ...common, '--out-dir', out, '--resume'], { encoding: 'utf8' });
    expect(otherInput.status).toBe(2);
    expect(otherInput.stderr).toMatch(/^virnucpro: cannot resume: the checkpoint in .* was made for a different input .*; resume with its input to keep its work, or --force to start over, which discards the \d+ item\(s\) kept\n$/);

    expect(readFileSync(join(out, '.checkpoints', 'manifest.json'), 'utf8')).toBe(before);
    expect(shardFiles(out).sort()).toEqual(shardFiles(interrupted).sort());
    expect(listing(out)).toEqual(listing(interrupted)); // nothing written
  });

  it('refuses a non-empty --out-dir without --resume or --force (exit 2), touching nothing', () => {
    const out = join(tmp, 'occupied');
    cpSync(reference, out, { recursive: true });
    writeFileSync(join(out, 'notes.txt'), 'mine\n');
    const r = runSync(out);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`virnucpro: output directory ${out} is not empty; pass --resume to continue that run or --force to overwrite it\n`);
    expect(readFileSync(join(out, 'notes.txt'), 'utf8')).toBe('mine\n');
    rmSync(join(out, 'notes.txt'));
    expectSameOutputs(out, reference);
  });

  it('SIGTERM: saves the finished frames as a verified shard and exits 143, stopping the workers', async () => {
    const out = join(tmp, 'terminated');
    // No count-triggered shards (checkpoint-every > frames): any shard must come from the SIGTERM flush.
    const child = spawn(process.execPath, args(out, '--workers', '2', '--checkpoint-every', '100000'), {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, VIRNUCPRO_PROGRESS_INTERVAL: '0' },
    });
    const done = childExit(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let framesDone = 0;
    await untilWhileRunning(() => {
      const m = [...stderr.matchAll(/predict: (\d+)\/\d+ frames/g)].pop();
      framesDone = m ? Number(m[1]) : 0;
      return framesDone >= 3;
    }, 'three finished frames', child);
    const workers = childPids(child.pid!);
    expect(workers.length).toBe(2);
    child.kill('SIGTERM');
    const { code } = await done;
    expect(code).toBe(143);
    expect(stderr).toContain('SIGTERM: saving finished results before exiting');
    expect(existsSync(join(out, 'prediction_results.txt'))).toBe(false);
    const shards = manifest(out).shards;
    expect(shards.length).toBe(1);
    const [shard] = shards;
    expect(shard.count).toBeGreaterThanOrEqual(framesDone);
    expect(shard.count).toBeLessThan(frames);
    const bytes = readFileSync(join(out, '.checkpoints', shard.file));
    expect(bytes.length).toBe(shard.bytes);
    expect(`${createHash('sha256').update(bytes).digest('hex')}`).toBe(shard.sha256.replace(/^sha256:/, ''));
    expect(listing(out)).toEqual(['.checkpoints']); // no partial output files
    // It says how much was kept and how to continue.
    // The command as it was started (the program, then every argument as given) plus --resume.
    expect(stderr).toContain(`kept ${shard.count} of ${frames} frames in ${join(out, '.checkpoints')}; continue with the same models and options: `);
    expect(stderr).toContain(` ${args(out, '--workers', '2', '--checkpoint-every', '100000').join(' ')} --resume\n`);
    await expectGone(workers);
  });

  it('SIGINT: the printed hint, pasted into a shell in the same folder, completes the run byte for byte', async () => {
    // Paths relative to the repository (as the README's command gives them), an --out-dir that needs quoting,
    // and --force, which the hint must leave out: with --resume it would be refused, and it discards kept work.
    const repository = join(data, '..');
    const out = join(tmp, "after ctrl-c's hint");
    const given = ['predict', 'test-data/lambda_virus.fa', '--models-dir', 'test-data/demo-models', '--mlp', mixedMlp, '--backend', 'cpu', '--token-budget', '512', '--out-dir', out, '--checkpoint-every', '4', '--force'];
    const child = spawn(process.execPath, [bin, ...given], { cwd: repository, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, VIRNUCPRO_PROGRESS_INTERVAL: '0' } });
    const done = childExit(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await untilWhileRunning(() => Number([...stderr.matchAll(/predict: (\d+)\/\d+ frames/g)].pop()?.[1] ?? 0) >= 8, 'eight finished frames', child);
    child.kill('SIGINT');
    expect((await done).code).toBe(130);
    expect(shardFiles(out).length).toBeGreaterThan(0);
    const hint = /continue with the same models and options: (.+)$/m.exec(stderr)?.[1];
    expect(hint, stderr).toBeDefined();
    expect(hint).not.toMatch(/--force/);
    const pasted = spawnSync('bash', ['-c', hint!], { cwd: repository, encoding: 'utf8' });
    expect(pasted.status, pasted.stderr).toBe(0);
    expect(pasted.stderr).toMatch(/resuming: \d+ frames restored/);
    expectSameOutputs(out, reference);
    expect(summary(out).resumedFrames).toBeGreaterThan(0);
  });

  it('SIGTERM while the models load: the folder the run created is removed, exit 143', async () => {
    const out = join(tmp, 'terminated-early');
    const child = spawn(process.execPath, args(out, '--workers', '2'), { stdio: ['ignore', 'ignore', 'pipe'] });
    const done = childExit(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await untilWhileRunning(() => existsSync(out), 'the output folder', child);
    child.kill('SIGTERM');
    const { code } = await done;
    expect(code).toBe(143);
    expect(existsSync(out)).toBe(false);
    expect(stderr).toMatch(/removed .*terminated-early, which this run had created|no frame was finished, so nothing was kept/);
  });

  it('--resume accepts the same records given gzipped after a plain run (the fingerprint is of the records, not the file bytes)', () => {
    const gz = join(tmp, 'input.fa.gz');
    writeFileSync(gz, gzipSync(readFileSync(input)));
    const out = join(tmp, 'gzipped');
    cpSync(interrupted, out, { recursive: true });
    const r = spawnSync(process.execPath, [bin, 'predict', gz, ...common, '--out-dir', out, '--resume', '--quiet'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(summary(out).resumedFrames).toBeGreaterThan(0); // the plain run's frames, kept
    expectSameOutputs(out, reference);
  });
});
