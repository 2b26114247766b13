#!/usr/bin/env node
// Runs every package's tests through nx, then prints one closing line that
// CI can read: "tests: N passed, M failed, K skipped".
// Extra arguments are passed to nx (e.g. --projects=@virnucpro/sixframe).
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const args = ['nx', 'run-many', '-t', 'test', '--parallel=1', '--outputStyle=stream', ...process.argv.slice(2)];
const started = performance.now();
const run = spawnSync('npx', args, { stdio: 'inherit', env: { NX_TUI: 'false', ...process.env } });
// The whole command's time (nx and each package's vitest start included), beside the packages' own times below.
const wallSeconds = (performance.now() - started) / 1000;

let passed = 0, failed = 0, skipped = 0, suitesFailed = 0;
/** Each package's wall time, from its run's start to its last test file's end (vitest's JSON report). */
const times = [];
for (const dir of readdirSync('packages')) {
  const report = join('packages', dir, '.test-results', 'vitest.json');
  if (!existsSync(report)) continue;
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const end = Math.max(r.startTime, ...(r.testResults ?? []).map((t) => t.endTime ?? 0));
  times.push([dir, (end - r.startTime) / 1000]);
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  // A test file that failed to load has failed suites but no failed tests.
  if (!r.numFailedTests) suitesFailed += r.numFailedTestSuites ?? 0;
}
// Where the suite's time goes: the slowest packages first.
for (const [dir, seconds] of times.sort((a, b) => b[1] - a[1])) console.log(`  ${seconds.toFixed(1).padStart(7)} s  ${dir}`);
console.log(`  ${times.reduce((sum, [, s]) => sum + s, 0).toFixed(1).padStart(7)} s  all packages`);
console.log(`  ${wallSeconds.toFixed(1).padStart(7)} s  npm test, wall (the packages one after another, with nx and vitest starting each)`);
if (suitesFailed) console.log(`(${suitesFailed} test files failed to run)`);
console.log(`tests: ${passed} passed, ${failed + suitesFailed} failed, ${skipped} skipped`);
process.exit(run.status ?? 1);
