// Batch invariance end to end (docs/architecture.md, "Batch invariance"; issue 27): `virnucpro predict` on the wasm
// backend with models of odd shapes (ESM-2 5 heads × 18, 3 layers; DNABERT-S 7 heads × 11 = 77, 2 layers) on a mixed
// input (phage lambda whole, a 20 kb reverse-complemented piece, short records of 1–2,500 bp, Ns, stops only) gives
// byte-identical result files however the work is cut: one run, 30 shards + merge, killed at 10 points and resumed,
// two worker processes, another token budget, a small packing window. Each cut puts every frame in other batches, beside other neighbours,
// at other offsets; before attentionLength (main at b76712f) such cuts moved scores in the 7th–8th digit.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, runCli, testData } from './cli-harness.js';

const makeModels = fileURLToPath(new URL('../../../tools/make-demo-models.mjs', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'predict-invariance-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const OUTPUTS = ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv', 'viral_regions.tsv', 'viral_regions.bed'];
const models = join(tmp, 'odd-models');
const input = join(tmp, 'mixed.fa');
const common = ['--models-dir', models, '--model-type', '300', '--backend', 'wasm', '--quiet'];
const args = (out: string, ...extra: string[]) => [bin, 'predict', input, ...common, '--out-dir', out, ...extra];
const single = join(tmp, 'single');
const summary = (dir: string) => JSON.parse(readFileSync(join(dir, 'run_summary.json'), 'utf8'));

/** Lambda whole, a reverse-complemented 20 kb piece of it, and short records around the 300 bp chunk length. */
function writeMixedInput(path: string): void {
  const genome = readFileSync(join(testData, 'lambda_virus.fa'), 'utf8').split('\n').filter((l) => !l.startsWith('>')).join('');
  const complement: Record<string, string> = { A: 'T', C: 'G', G: 'C', T: 'A' };
  const records: [string, string][] = [['lambda', genome]];
  [1, 50, 120, 299, 300, 301, 450, 599, 601, 1000, 2500].forEach((n, i) => records.push([`short${i + 1}_${n}bp`, genome.slice(1000 + 3000 * i, 1000 + 3000 * i + n)]));
  records.push(['with_n', genome.slice(5000, 5400).replace(/A/g, 'N')]);
  records.push(['stops_only', 'TAA'.repeat(150)]);
  records.push(['lambda_rc_20kb', [...genome.slice(10_000, 30_000)].reverse().map((c) => complement[c] ?? 'N').join('')]);
  writeFileSync(path, records.map(([id, s]) => `>${id}\n${s.match(/.{1,70}/g)!.join('\n')}\n`).join(''));
}

function expectSameOutputs(dir: string): void {
  for (const file of OUTPUTS) expect(readFileSync(join(dir, file)).equals(readFileSync(join(single, file))), `${dir}: ${file}`).toBe(true);
}

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

/** Runs predict in the background; resolves with its exit code and stderr. */
function predictAsync(out: string, ...extra: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, args(out, ...extra), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return exited(child).then((code) => ({ code, stderr }));
}

const checkpointShards = (out: string) =>
  existsSync(join(out, '.checkpoints')) ? readdirSync(join(out, '.checkpoints')).filter((f) => f.endsWith('.safetensors')).length : 0;

beforeAll(() => {
  const made = spawnSync(process.execPath, [makeModels, models, '--esm', '3,90,5,171', '--dnabert', '2,77,7,131'], { encoding: 'utf8' });
  expect(made.status, made.stderr).toBe(0);
  writeMixedInput(input);
  const r = spawnSync(process.execPath, args(single), { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  expect(summary(single)).toMatchObject({ backend: 'wasm', sequences: 15 });
  expect(summary(single).frames).toBeGreaterThan(200);
});

describe('virnucpro predict on wasm, odd model shapes: the same bytes however the work is cut', () => {
  it('30 shards + merge', async () => {
    const shards = Array.from({ length: 30 }, (_, k) => join(tmp, `shard-${k + 1}`));
    for (let k = 0; k < shards.length; k += 2) {
      const runs = await Promise.all(shards.slice(k, k + 2).map((dir, j) => predictAsync(dir, '--shard', `${k + j + 1}/30`)));
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
    }
    const merged = join(tmp, 'merged');
    const r = runCli(['merge', ...shards, '--out-dir', merged, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    expectSameOutputs(merged);
  });

  it('killed (SIGKILL) at 10 points, resumed each time, then finished with --resume', async () => {
    const out = join(tmp, 'killed');
    const every = ['--checkpoint-every', '6'];
    const expectedShards = Math.ceil(summary(single).frames / 6);
    let kills = 0;
    for (let point = 1; point <= 10; point++) {
      const target = Math.floor((point * expectedShards) / 11);
      const child = spawn(process.execPath, args(out, ...every, ...(point > 1 ? ['--resume'] : [])), { detached: true, stdio: 'ignore' });
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
    const resumed = spawnSync(process.execPath, args(out, ...every, '--resume'), { encoding: 'utf8' });
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(summary(out).resumedSequences).toBeGreaterThan(0);
    expectSameOutputs(out);
  });

  it('two worker processes', () => {
    const out = join(tmp, 'workers-2');
    const r = spawnSync(process.execPath, args(out, '--workers', '2'), { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(summary(out).workers).toBe(2);
    expectSameOutputs(out);
  });

  it('another token budget (every batch cut differently)', () => {
    const out = join(tmp, 'budget-300');
    const r = spawnSync(process.execPath, args(out, '--token-budget', '300'), { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(summary(out).batches).toBeGreaterThan(summary(single).batches);
    expectSameOutputs(out);
  });

  it('a small packing window (the emptiest batch of a window is carried over: its frames go with the next window)', () => {
    const out = join(tmp, 'window-40');
    const r = spawnSync(process.execPath, args(out, '--pack-window', '40', '--token-budget', '1000'), { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(summary(out).packingEfficiency).toBeGreaterThan(0.9);
    expectSameOutputs(out);
  });
});
