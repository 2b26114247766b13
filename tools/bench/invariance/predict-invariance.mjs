#!/usr/bin/env node
// Batch invariance end to end on any backend (issue 27; packages/cli/test/predict-invariance.test.ts and
// predict-worker-kill.test.ts check the same on wasm/cpu in CI): `virnucpro predict` once, then the same input cut
// other ways — N shards + merge, killed (SIGKILL) at K points and resumed, two worker processes with one of them
// killed mid-run (on a one-GPU machine both workers share GPU 0) — must give byte-identical result files.
// Runs the CLI it is given, so it works from the repository here and with the bundled CLI on the GPU machine:
//   node tools/make-demo-models.mjs /tmp/odd --esm 3,90,5,171 --dnabert 2,77,7,131     (odd shapes)
//   node tools/bench/invariance/predict-invariance.mjs --cli packages/cli/bin/virnucpro.js --models /tmp/odd \
//     --input test-data/lambda_virus.fa --work /tmp/inv [--backend cuda --precision bf16] [--shards 30] [--kills 10]
// Prints one JSON object (each check: passed, differing files, seconds) and exits 1 if any check failed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';

const { values: args } = parseArgs({
  options: {
    cli: { type: 'string' }, models: { type: 'string' }, input: { type: 'string' }, work: { type: 'string' },
    backend: { type: 'string', default: 'auto' }, precision: { type: 'string' }, 'model-type': { type: 'string', default: '300' },
    shards: { type: 'string', default: '30' }, kills: { type: 'string', default: '10' }, 'worker-kill': { type: 'boolean', default: true },
  },
});
for (const key of ['cli', 'models', 'input', 'work']) if (!args[key]) throw new Error(`--${key} is required`);
const OUTPUTS = ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv', 'viral_regions.tsv', 'viral_regions.bed'];
const work = resolve(args.work);
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const common = [
  resolve(args.cli), 'predict', resolve(args.input), '--models-dir', resolve(args.models), '--model-type', args['model-type'], '--backend', args.backend,
  ...(args.precision ? ['--precision', args.precision] : []),
];
const run = (out, ...extra) => spawnSync(process.execPath, [...common, '--out-dir', out, '--quiet', ...extra], { encoding: 'utf8' });
const checks = [];

function differing(dir) {
  return OUTPUTS.filter((f) => !existsSync(join(dir, f)) || !readFileSync(join(dir, f)).equals(readFileSync(join(work, 'single', f))));
}

async function check(name, body) {
  const started = performance.now();
  try {
    const dir = await body();
    const files = differing(dir);
    checks.push({ name, passed: files.length === 0, differing: files, seconds: +((performance.now() - started) / 1000).toFixed(1) });
  } catch (error) {
    checks.push({ name, passed: false, error: String(error.message ?? error).slice(0, 2000), seconds: +((performance.now() - started) / 1000).toFixed(1) });
  }
}

/** Child processes of `pid`, from /proc (no ps needed). */
function childPids(pid) {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((p) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
    } catch {
      return false;
    }
  });
}

const started = performance.now();
const single = run(join(work, 'single'));
if (single.status !== 0) throw new Error(`the reference run failed (exit ${single.status}):\n${single.stderr}`);
const singleSeconds = (performance.now() - started) / 1000;
const summary = JSON.parse(readFileSync(join(work, 'single', 'run_summary.json'), 'utf8'));

const shards = Number(args.shards);
if (shards > 1) await check(`${shards} shards + merge`, () => {
  const dirs = [];
  for (let k = 1; k <= shards; k++) {
    const dir = join(work, `shard-${k}`);
    const r = run(dir, '--shard', `${k}/${shards}`);
    if (r.status !== 0) throw new Error(`shard ${k}/${shards} exited ${r.status}: ${r.stderr}`);
    dirs.push(dir);
  }
  const merged = join(work, 'merged');
  const r = spawnSync(process.execPath, [resolve(args.cli), 'merge', ...dirs, '--out-dir', merged, '--quiet'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`merge exited ${r.status}: ${r.stderr}`);
  return merged;
});

const kills = Number(args.kills);
if (kills > 0) await check(`killed (SIGKILL) at ${kills} points, resumed each time`, async () => {
  const out = join(work, 'killed');
  let killed = 0;
  for (let i = 1; i <= kills; i++) {
    // Points spread over one run's length (model loading included): each resume starts from what was kept.
    const child = spawn(process.execPath, [...common, '--out-dir', out, '--quiet', ...(existsSync(out) ? ['--resume'] : [])], { stdio: 'ignore', detached: true });
    const exited = new Promise((r) => child.once('exit', r));
    const finished = await Promise.race([exited.then(() => true), sleep((singleSeconds * 1000 * i) / (kills + 1)).then(() => false)]);
    if (finished) continue;
    process.kill(-child.pid, 'SIGKILL');
    await exited;
    killed++;
  }
  const r = run(out, '--resume');
  if (r.status !== 0) throw new Error(`the final --resume exited ${r.status}: ${r.stderr}`);
  if (killed === 0) throw new Error('every run finished before its kill: nothing was tested');
  return out;
});

if (args['worker-kill']) await check('--workers 2, one worker killed (SIGKILL) mid-run', async () => {
  const out = join(work, 'workers-2');
  const child = spawn(process.execPath, [...common, '--out-dir', out, '--workers', '2'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, VIRNUCPRO_PROGRESS_INTERVAL: '0' } });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk.toString()));
  const exited = new Promise((r) => child.once('exit', (code) => r(code)));
  const framesDone = () => Number([...stderr.matchAll(/predict: (\d+)\/\d+ frames/g)].pop()?.[1] ?? 0);
  for (const start = Date.now(); framesDone() < summary.frames / 4; await sleep(10)) {
    if (child.exitCode !== null) throw new Error(`predict exited (${child.exitCode}) before a quarter of the frames:\n${stderr}`);
    if (Date.now() - start > 300_000) throw new Error('timed out waiting for a quarter of the frames');
  }
  const workers = childPids(child.pid);
  if (workers.length !== 2) throw new Error(`expected 2 worker processes, found ${workers.length}`);
  process.kill(workers[1], 'SIGKILL');
  const doneAtKill = framesDone();
  const code = await exited;
  if (code !== 0) throw new Error(`predict exited ${code}:\n${stderr.slice(-2000)}`);
  // A worker killed after the last batch was handed out has nothing to lose: the check then tested nothing.
  if (doneAtKill >= summary.frames) throw new Error(`every frame was done before the kill (${doneAtKill}/${summary.frames}): give a larger --input`);
  if (!/worker \d .* killed by SIGKILL/.test(stderr)) throw new Error(`no word of the killed worker in:\n${stderr.slice(-2000)}`);
  return out;
});

const result = {
  date: new Date().toISOString(), backend: summary.backend, precision: summary.precision, frames: summary.frames,
  singleSeconds: +singleSeconds.toFixed(1), checks, passed: checks.every((c) => c.passed),
};
console.log(JSON.stringify(result, null, 1));
process.exit(result.passed ? 0 : 1);
