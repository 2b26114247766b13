#!/usr/bin/env node
// `npm test`: builds what the tests run (nx, cached; not under CI, which has just built), then every package's tests in ONE vitest run
// (vitest.config.ts: each package a project, two files at a time on one scheduler, the CLI's races and clocks last),
// then prints each package's time and one closing line that CI reads: "tests: N passed, M failed, K skipped".
// Extra arguments go to vitest (e.g. --project @virnucpro/sixframe, or a file filter).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const report = '.test-results/vitest.json';
const fileTimes = '.test-results/file-times.json';
const started = performance.now();
// Tests that spawn the CLI or worker processes run built code (packages/cli/bundle, each package's dist): build what
// changed first (nx, cached). Not under CI, whose script has just built everything with nx's cache off
// (.ci/run: NX_SKIP_NX_CACHE), where this would build it all again (~35 s on 2 cores).
if (!process.env.CI) {
  const build = spawnSync('npx', ['nx', 'run-many', '-t', 'build', '--outputStyle=stream'], { stdio: ['ignore', 'ignore', 'inherit'], env: { NX_TUI: 'false', ...process.env } });
  if (build.status !== 0) {
    console.error('npm test: the build failed (run `npm run build` to see why)');
    process.exit(build.status ?? 1);
  }
}
const buildSeconds = (performance.now() - started) / 1000;
for (const f of [report, fileTimes]) rmSync(f, { force: true });
// Every temporary file of the run (the tests', and those of the processes they start) in one folder, removed at the
// end: a test that does not clean up after itself, or a process killed on purpose, leaves nothing behind.
const scratch = mkdtempSync(join(tmpdir(), 'virnucpro-tests-'));
const run = spawnSync('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, '--reporter=./tools/test/file-times-reporter.mjs', ...process.argv.slice(2)], { stdio: 'inherit', env: { ...process.env, TMPDIR: scratch } });
rmSync(scratch, { recursive: true, force: true });
// The whole command's time (the build check and vitest's start included), beside the packages' own times below.
const wallSeconds = (performance.now() - started) / 1000;

let passed = 0, failed = 0, skipped = 0, suitesFailed = 0;
/** Per package: the sum of its test files' whole times (import, hooks, tests; files of several packages overlap). */
const times = new Map();
if (existsSync(fileTimes)) {
  for (const { file, seconds } of JSON.parse(readFileSync(fileTimes, 'utf8'))) {
    const pkg = relative('packages', file).split('/')[0];
    times.set(pkg, (times.get(pkg) ?? 0) + seconds);
  }
}
if (existsSync(report)) {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  passed = r.numPassedTests ?? 0;
  failed = r.numFailedTests ?? 0;
  skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  // A test file that failed to load has failed suites but no failed tests.
  if (!r.numFailedTests) suitesFailed = r.numFailedTestSuites ?? 0;
}
// Where the suite's time goes: the slowest packages first.
for (const [pkg, seconds] of [...times].sort((a, b) => b[1] - a[1])) console.log(`  ${seconds.toFixed(1).padStart(7)} s  ${pkg} (its files' own times)`);
if (!process.env.CI) console.log(`  ${buildSeconds.toFixed(1).padStart(7)} s  build check (nx, cached)`);
console.log(`  ${wallSeconds.toFixed(1).padStart(7)} s  npm test, wall (every package's files in one vitest run, one more file at a time than the cores)`);
if (suitesFailed) console.log(`(${suitesFailed} test files failed to run)`);
if (!existsSync(report)) console.log('(vitest wrote no report)');
console.log(`tests: ${passed} passed, ${failed + suitesFailed} failed, ${skipped} skipped`);
process.exit(run.status === 0 && existsSync(report) ? 0 : run.status || 1);
